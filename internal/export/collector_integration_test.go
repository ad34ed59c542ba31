package export_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/pipeline"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// TestCollectorReceivesEveryGoldenTrace runs the pipeline over every sample
// with the OTLP exporter pointed at a real OpenTelemetry Collector (built from
// tools/otelcol, or OTELCOL_BIN), then reads back what the Collector's file
// exporter wrote: every trace written to a file must arrive, unchanged (ids,
// names, attributes, events), and nothing else. The inputs that convert are
// those with a golden trace; samples that fail by design write nothing and
// export nothing.
func TestCollectorReceivesEveryGoldenTrace(t *testing.T) {
	bin := collectorBinary(t)
	col := startCollector(t, bin)
	exp, err := export.New(export.Config{URL: "http://" + col.addr + export.TracesPath, Retries: 2, Backoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	var want []trace // what the pipeline wrote, in the order it was written
	outRoot := t.TempDir()
	for _, c := range goldenCases(t) {
		ins, err := pipeline.Expand([]string{c.sample})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(outRoot, c.converter, c.name)
		var stderr bytes.Buffer
		oc := pipeline.Run(context.Background(), ins, pipeline.RunOptions{
			Options: pipeline.Options{Converter: c.converter},
			Out:     out,
			Jobs:    2,
			AfterWrite: func(ctx context.Context, _ pipeline.Input, res *pipeline.Result) error {
				return exp.Export(ctx, res.Trace)
			},
		}, &stderr)
		if strings.Contains(stderr.String(), "otlp export") {
			t.Fatalf("%s: export failed:\n%s", c.sample, stderr.String())
		}
		written := traceFiles(t, out)
		goldens := c.goldenTraces(t)
		if oc.Converted != len(goldens) || len(written) != len(goldens) {
			t.Fatalf("%s: %d inputs converted and %d traces written, golden has %d:\n%s", c.sample, oc.Converted, len(written), len(goldens), stderr.String())
		}
		for name, data := range written { // their bytes are TestGolden's business
			if _, ok := goldens[name]; !ok {
				t.Fatalf("%s: wrote %s, which has no golden file", c.sample, name)
			}
			want = append(want, parseTrace(t, c.sample+" -> "+name, data))
		}
	}

	lines := col.stop(t)
	if bytes.Contains(lines, []byte("CANARY")) {
		t.Fatal("a sample's canary reached the collector")
	}
	var got []trace
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		got = append(got, parseTrace(t, fmt.Sprintf("collector output line %d", n), sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 {
		t.Fatalf("only %d traces exported: are the samples there?", len(want))
	}
	compareTraces(t, want, got)
	if t.Failed() {
		return
	}
	t.Logf("%d traces, %d spans, %d events went through the collector unchanged", len(got), sum(got, func(tr trace) int { return tr.spans }), sum(got, func(tr trace) int { return tr.events }))
}

// trace is one OTLP/JSON document: pdata's canonical re-encoding (every id,
// name, attribute and event, in order) and its counts.
type trace struct {
	from          string
	canonical     string
	spans, events int
	first         string // trace id and name of the first span, for messages
}

func parseTrace(t *testing.T, from string, data []byte) trace {
	t.Helper()
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	if err != nil {
		t.Fatalf("%s: not OTLP/JSON: %v", from, err)
	}
	tr := trace{from: from, spans: td.SpanCount()}
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				s := spans.At(k)
				if s.TraceID().IsEmpty() || s.SpanID().IsEmpty() {
					t.Fatalf("%s: span %q has an empty id", from, s.Name())
				}
				if tr.first == "" {
					tr.first = s.TraceID().String() + " " + s.Name()
				}
				tr.events += s.Events().Len()
			}
		}
	}
	if tr.spans == 0 {
		t.Fatalf("%s: no spans", from)
	}
	canon, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	tr.canonical = string(canon)
	return tr
}

// compareTraces checks that got holds exactly the traces of want, whatever
// the order the collector wrote them in.
func compareTraces(t *testing.T, want, got []trace) {
	t.Helper()
	if w, g := sum(want, func(tr trace) int { return tr.spans }), sum(got, func(tr trace) int { return tr.spans }); w != g {
		t.Errorf("the collector received %d spans, the files hold %d", g, w)
	}
	if w, g := sum(want, func(tr trace) int { return tr.events }), sum(got, func(tr trace) int { return tr.events }); w != g {
		t.Errorf("the collector received %d span events, the files hold %d", g, w)
	}
	unmatched := map[string][]trace{}
	for _, tr := range got {
		unmatched[tr.canonical] = append(unmatched[tr.canonical], tr)
	}
	for _, tr := range want {
		if len(unmatched[tr.canonical]) == 0 {
			t.Errorf("%s (trace %s: %d spans, %d events) did not arrive unchanged", tr.from, tr.first, tr.spans, tr.events)
			continue
		}
		unmatched[tr.canonical] = unmatched[tr.canonical][1:]
	}
	for _, trs := range unmatched {
		for _, tr := range trs {
			t.Errorf("%s (trace %s: %d spans, %d events) matches no written file", tr.from, tr.first, tr.spans, tr.events)
		}
	}
}

func sum(trs []trace, f func(trace) int) int {
	n := 0
	for _, tr := range trs {
		n += f(tr)
	}
	return n
}

// goldenCase is one sample, as the golden tests see it: a .jsonl file, or a
// directory (a native layout) converted as one argument.
type goldenCase struct {
	converter, name, sample string
	dir                     bool
}

// goldenTraces are the case's golden traces, by path relative to the
// output directory the case is converted into.
func (c goldenCase) goldenTraces(t *testing.T) map[string][]byte {
	t.Helper()
	dir := filepath.Join(root, "golden", c.converter)
	if c.dir {
		return traceFiles(t, filepath.Join(dir, c.name))
	}
	files := map[string][]byte{}
	data, err := os.ReadFile(filepath.Join(dir, c.name+".otel.jsonl"))
	switch {
	case err == nil: // keyed by the name a run writes (input-<hex> for a name that is no session id)
		files[path.Base(pipeline.OutputName(filepath.Base(c.sample), ".otel.jsonl"))] = data
	case !os.IsNotExist(err):
		t.Fatal(err)
	}
	return files
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "samples", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []goldenCase
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		out = append(out, goldenCase{
			converter: filepath.Base(filepath.Dir(p)),
			name:      strings.TrimSuffix(filepath.Base(p), ".jsonl"),
			sample:    p,
			dir:       st.IsDir(),
		})
	}
	if len(out) == 0 {
		t.Fatal("no samples found under " + filepath.Join(root, "samples"))
	}
	return out
}

// traceFiles reads the .otel.jsonl files under dir, by slash path relative
// to dir.
func traceFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".otel.jsonl") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// collectorBinary is OTELCOL_BIN, or tools/otelcol built into a temporary
// directory. In CI (CI set) a collector that cannot be had fails the test;
// elsewhere (offline, say) it skips it, saying why.
func collectorBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("OTELCOL_BIN"); bin != "" {
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			t.Fatalf("OTELCOL_BIN=%s is not a file: %v", bin, err)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "otelcol")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(root, "tools", "otelcol")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := fmt.Sprintf("cannot build the collector in tools/otelcol (set OTELCOL_BIN to a built one): %v\n%s", err, out)
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatal(msg)
		}
		t.Skip(msg + "\n(outside CI this skips; in CI it fails)")
	}
	t.Logf("built tools/otelcol in %s", time.Since(start).Round(time.Second))
	return bin
}

// collector is a running collector process.
type collector struct {
	addr, grpcAddr, out, log string
	cmd                      *exec.Cmd
	done                     chan error // the result of Wait
	stopped                  bool
}

func (col *collector) logText() string {
	b, _ := os.ReadFile(col.log)
	return string(b)
}

// freePort is a loopback address nothing listens on (for now).
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startCollector starts bin on free loopback ports (OTLP/HTTP at addr,
// OTLP/gRPC at grpcAddr), writing to a file in a temporary directory, and
// waits until both accept connections.
func startCollector(t *testing.T, bin string) *collector {
	t.Helper()
	addr, grpcAddr := freePort(t), freePort(t)
	dir := t.TempDir()
	col := &collector{addr: addr, grpcAddr: grpcAddr, out: filepath.Join(dir, "traces.jsonl"), log: filepath.Join(dir, "collector.log"), done: make(chan error, 1)}
	logf, err := os.Create(col.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close() // the child keeps its own descriptor
	col.cmd = exec.Command(bin, "-listen", addr, "-grpc-listen", grpcAddr, "-out", col.out)
	col.cmd.Stdout, col.cmd.Stderr = logf, logf
	if err := col.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { col.done <- col.cmd.Wait() }()
	t.Cleanup(func() {
		if !col.stopped {
			col.cmd.Process.Kill()
			<-col.done
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-col.done:
			col.stopped = true
			t.Fatalf("the collector exited before accepting connections: %v\n%s", err, col.logText())
		default:
		}
		if listening(addr) && listening(grpcAddr) {
			return col
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not listen on %s within 20s:\n%s", addr, col.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func listening(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
	}
	return err == nil
}

// stop shuts the collector down (SIGINT, so the file exporter flushes),
// requires a clean exit and returns what it wrote.
func (col *collector) stop(t *testing.T) []byte {
	t.Helper()
	col.stopped = true
	if err := col.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-col.done:
		if err != nil {
			t.Fatalf("the collector exited with %v:\n%s", err, col.logText())
		}
	case <-time.After(10 * time.Second):
		col.cmd.Process.Kill()
		<-col.done
		t.Fatalf("the collector did not stop within 10s of SIGINT:\n%s", col.logText())
	}
	if strings.Contains(col.logText(), "CANARY") {
		t.Fatal("a sample's canary reached the collector's log")
	}
	data, err := os.ReadFile(col.out)
	if err != nil {
		t.Fatalf("the collector wrote no file: %v\n%s", err, col.logText())
	}
	return data
}
