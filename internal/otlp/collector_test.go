package otlp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestGoldenTracesDecodeWithCollector reads every golden trace as the
// Collector's otlpjsonfile receiver does: line by line, each line a
// TracesData for the Collector's own OTLP/JSON decoder (pdata). It checks
// what pdata is lenient about too: non-empty ids, and as many span events
// as the receipt beside it has lines.
func TestGoldenTracesDecodeWithCollector(t *testing.T) {
	files, err := globTraces("../../golden")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden traces found")
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../../golden/"), func(t *testing.T) {
			doc, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if p := Validate(doc); len(p) > 0 {
				t.Fatalf("strict check: %v", p)
			}
			lines := bytes.Split(bytes.TrimSuffix(doc, []byte{'\n'}), []byte{'\n'})
			td := ptrace.NewTraces()
			for i, line := range lines {
				one, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
				if err != nil {
					t.Fatalf("line %d: collector decoder: %v", i+1, err)
				}
				one.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
			}
			if td.SpanCount() == 0 {
				t.Fatal("collector decoded no spans")
			}
			events := 0
			rss := td.ResourceSpans()
			for i := 0; i < rss.Len(); i++ {
				sss := rss.At(i).ScopeSpans()
				for j := 0; j < sss.Len(); j++ {
					spans := sss.At(j).Spans()
					for k := 0; k < spans.Len(); k++ {
						s := spans.At(k)
						if s.TraceID().IsEmpty() || s.SpanID().IsEmpty() {
							t.Errorf("span %q has an empty id", s.Name())
						}
						if s.EndTimestamp() < s.StartTimestamp() {
							t.Errorf("span %q ends before it starts", s.Name())
						}
						events += s.Events().Len()
					}
				}
			}
			rec, err := os.ReadFile(f[:len(f)-len(".otel.jsonl")] + ".receipt.ndjson")
			if err != nil {
				t.Fatal(err)
			}
			if lines := bytes.Count(rec, []byte{'\n'}); events != lines {
				t.Errorf("trace has %d span events, receipt has %d lines", events, lines)
			}
			// pdata re-encodes what it read; our document must survive the
			// round trip with the same span count.
			again, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
			if err != nil {
				t.Fatal(err)
			}
			td2, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(again)
			if err != nil || td2.SpanCount() != td.SpanCount() {
				t.Fatalf("round trip through the collector encoding lost spans: %v", err)
			}
		})
	}
}

// globTraces lists every *.otel.jsonl under dir, nested layouts included.
func globTraces(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".otel.jsonl") {
			out = append(out, p)
		}
		return err
	})
	return out, err
}
