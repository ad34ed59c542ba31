package export_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/pipeline"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// comboKey is the resource attribute each export of
// TestCollectorReceivesEveryProtocol carries, to tell them apart in the
// Collector's output: it also proves the resource attributes arrive.
const comboKey = "convert.test.export"

// TestCollectorReceivesEveryProtocol exports every trace the samples
// convert to over http/protobuf, http/json and grpc, each plain and
// gzip-compressed, to one real Collector (tools/otelcol, OTLP receiver on
// HTTP and gRPC, file exporter), with OTEL_RESOURCE_ATTRIBUTES-style
// resource attributes merged in. Each of the six must deliver exactly the
// traces written (ids, names, attributes, events; pdata's canonical
// encoding), with its attributes on every resource and nothing else
// changed.
func TestCollectorReceivesEveryProtocol(t *testing.T) {
	bin := collectorBinary(t)
	docs := convertSamples(t)
	col := startCollector(t, bin)

	type combo struct{ protocol, compression, url string }
	var combos []combo
	for _, p := range []string{export.ProtocolHTTPProtobuf, export.ProtocolHTTPJSON, export.ProtocolGRPC} {
		url := "http://" + col.addr + export.TracesPath
		if p == export.ProtocolGRPC {
			url = "http://" + col.grpcAddr
		}
		for _, c := range []string{export.CompressionNone, export.CompressionGzip} {
			combos = append(combos, combo{p, c, url})
		}
	}
	var want []trace
	for _, d := range docs {
		want = append(want, parseTrace(t, d.from, d.data))
	}
	for _, c := range combos {
		name := c.protocol + "+" + c.compression
		exp, err := export.New(export.Config{URL: c.url, Protocol: c.protocol, Compression: c.compression,
			Resource: []export.Attr{{Key: comboKey, Value: name}, {Key: "deployment.environment", Value: "test"}},
			Retries:  2, Backoff: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for _, d := range docs {
			if err := exp.Export(context.Background(), d.data); err != nil {
				t.Fatalf("%s: %s: %v", name, d.from, err)
			}
		}
		exp.Close()
		t.Logf("%s: %d traces sent in %s", name, len(docs), time.Since(start).Round(time.Millisecond))
	}

	lines := col.stop(t)
	if bytes.Contains(lines, []byte("CANARY")) {
		t.Fatal("a sample's canary reached the collector")
	}
	got := map[string][]trace{}
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		from := fmt.Sprintf("collector output line %d", n)
		name, data := takeCombo(t, from, sc.Bytes())
		got[name] = append(got[name], parseTrace(t, from+" ("+name+")", data))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 {
		t.Fatalf("only %d traces written: are the samples there?", len(want))
	}
	for _, c := range combos {
		name := c.protocol + "+" + c.compression
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			compareTraces(t, want, got[name])
			if !t.Failed() {
				t.Logf("%d traces, %d spans arrived unchanged", len(got[name]), sum(got[name], func(tr trace) int { return tr.spans }))
			}
		})
		delete(got, name)
	}
	for name, trs := range got {
		t.Errorf("%d traces arrived with %s=%q, which no export sent", len(trs), comboKey, name)
	}
}

// doc is one trace document as written.
type doc struct {
	from string
	data []byte
}

// convertSamples converts every sample with the pipeline and returns the
// trace files written.
func convertSamples(t *testing.T) []doc {
	t.Helper()
	var docs []doc
	outRoot := t.TempDir()
	for _, c := range goldenCases(t) {
		ins, err := pipeline.Expand([]string{c.sample})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(outRoot, c.converter, c.name)
		var stderr bytes.Buffer
		pipeline.Run(context.Background(), ins, pipeline.RunOptions{Options: pipeline.Options{Converter: c.converter}, Out: out, Jobs: 2}, &stderr)
		for name, data := range traceFiles(t, out) {
			docs = append(docs, doc{from: c.sample + " -> " + name, data: data})
		}
	}
	return docs
}

// takeCombo reads which export a received document came from and takes
// the test's attributes out of each resource, so that what is left
// compares with the file written. An attribute missing from a resource,
// or one resource saying another export than the next, fails the test.
func takeCombo(t *testing.T, from string, data []byte) (string, []byte) {
	t.Helper()
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	if err != nil {
		t.Fatalf("%s: not OTLP/JSON: %v", from, err)
	}
	name := ""
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		attrs := rss.At(i).Resource().Attributes()
		v, ok := attrs.Get(comboKey)
		env, ok2 := attrs.Get("deployment.environment")
		if !ok || !ok2 || env.AsString() != "test" || (name != "" && v.AsString() != name) {
			t.Fatalf("%s: resource %d lacks the exported resource attributes", from, i)
		}
		name = v.AsString()
		attrs.Remove(comboKey)
		attrs.Remove("deployment.environment")
	}
	out, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return name, out
}
