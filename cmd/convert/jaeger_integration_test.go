package main

// The real-viewer test of issue 19: the bundled samples are exported by
// convert run to a real Jaeger v2 (built from tools/jaeger, its own Go
// module) and read back through Jaeger's query API. It runs when JAEGER_BIN
// names a built jaeger binary (make test-jaeger builds one and runs it) and
// is skipped otherwise: building Jaeger takes minutes.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// item6Landed turns on the assertions of issue 19 item 6 (trace naming:
// service.name per agent, "invoke_agent <agent>" roots, "execute_tool
// <tool>" spans, chat spans with a start time, Codex subagents nested in
// their parent's trace). It landed; the constant stays so the assertions
// read as the item's.
const item6Landed = true

// otlpSpan is a span as convert wrote it (OTLP/JSON).
type otlpSpan struct {
	TraceID, SpanID, ParentSpanID, Name string
	Start, End                          int64 // unix ns
	Events                              int
	Service                             string
	File                                string
}

func readWrittenSpans(t *testing.T, out string) map[string][]otlpSpan {
	t.Helper()
	traces := map[string][]otlpSpan{}
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".otel.jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct {
					Spans []struct {
						TraceID, SpanID, ParentSpanID, Name string
						StartTimeUnixNano, EndTimeUnixNano  string
						Events                              []json.RawMessage
					}
				}
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		for _, rs := range doc.ResourceSpans {
			svc := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					svc = a.Value.StringValue
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					var st, en int64
					fmt.Sscan(s.StartTimeUnixNano, &st)
					fmt.Sscan(s.EndTimeUnixNano, &en)
					traces[s.TraceID] = append(traces[s.TraceID], otlpSpan{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID,
						Name: s.Name, Start: st, End: en, Events: len(s.Events), Service: svc, File: filepath.Base(p)})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return traces
}

// jaegerTrace is a trace as Jaeger's query API (/api/traces/ID) returns it.
type jaegerTrace struct {
	Spans []struct {
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			TraceID string `json:"traceID"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		StartTime int64             `json:"startTime"` // µs
		Duration  int64             `json:"duration"`  // µs
		Logs      []json.RawMessage `json:"logs"`
		ProcessID string            `json:"processID"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

type jaeger struct {
	otlp, query string // host:port
	cmd         *exec.Cmd
	log         *strings.Builder
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startJaeger runs Jaeger v2 with in-memory storage, an OTLP/HTTP receiver
// and the query service, on loopback ports of its own.
func startJaeger(t *testing.T, bin string) *jaeger {
	t.Helper()
	j := &jaeger{otlp: freePort(t), query: freePort(t), log: &strings.Builder{}}
	cfg := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: mem
    max_clock_skew_adjust: 0s
    http:
      endpoint: %s
    grpc:
      endpoint: %s
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`, j.query, freePort(t), j.otlp)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	j.cmd = exec.Command(bin, "--config", "file:"+path)
	j.cmd.Stdout, j.cmd.Stderr = writerFunc(j.log), writerFunc(j.log)
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		j.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { j.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second): // a clean shutdown takes Jaeger about 12 s
			j.cmd.Process.Kill()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + j.query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger did not start within 60s:\n%s", j.log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return j
}

type sbWriter struct{ b *strings.Builder }

func (w sbWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

func writerFunc(b *strings.Builder) io.Writer { return sbWriter{b} }

func (j *jaeger) trace(t *testing.T, id string) jaegerTrace {
	t.Helper()
	resp, err := http.Get("http://" + j.query + "/api/traces/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data []jaegerTrace `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 || len(r.Data) != 1 {
		t.Fatalf("trace %s: HTTP %d, %d traces, %v", id, resp.StatusCode, len(r.Data), err)
	}
	return r.Data[0]
}

// jaegerInputs are the good samples: every native layout, and the basic
// case of every scenario converter.
func jaegerInputs(t *testing.T) []string {
	repo, _ := filepath.Abs("../..")
	var ins []string
	for _, conv := range []string{"claude_code", "codex", "cursor"} {
		entries, _ := os.ReadDir(filepath.Join(repo, "samples", conv))
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "bad_") {
				ins = append(ins, filepath.Join(repo, "samples", conv, e.Name()))
			}
		}
	}
	basics, _ := filepath.Glob(filepath.Join(repo, "samples", "*", "basic.jsonl"))
	for _, b := range basics {
		if !slices.Contains(ins, b) {
			ins = append(ins, b)
		}
	}
	return ins
}

func TestJaeger(t *testing.T) {
	bin := os.Getenv("JAEGER_BIN")
	if bin == "" {
		t.Skip("JAEGER_BIN is not set: make test-jaeger builds Jaeger v2 from tools/jaeger and runs this test")
	}
	j := startJaeger(t, bin)
	out := t.TempDir()
	args := append([]string{"run", "--out", out, "--otlp-endpoint", "http://" + j.otlp, "--jobs", "2"}, jaegerInputs(t)...)

	code, _, se := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\njaeger:\n%s", code, se, j.log)
	}
	written := readWrittenSpans(t, out)
	nspans := 0
	for _, sp := range written {
		nspans += len(sp)
	}
	if want := fmt.Sprintf("convert: exported %d traces (%d spans) to http://%s over http/protobuf", countTraceFiles(t, out), nspans, j.otlp); !strings.Contains(se, want) {
		t.Errorf("stderr lacks %q:\n%s", want, se)
	}
	if len(written) < 20 {
		t.Fatalf("only %d traces written: are the samples there?", len(written))
	}
	check := func(round string) (spans, events int) {
		for id, want := range written {
			got := j.trace(t, id)
			spans += len(got.Spans)
			if len(got.Spans) != len(want) {
				t.Errorf("%s: trace %s (%s): Jaeger has %d spans, the file %d (duplicates?)", round, id, want[0].File, len(got.Spans), len(want))
				continue
			}
			byID := map[string]otlpSpan{}
			for _, s := range want {
				byID[s.SpanID] = s
			}
			for _, g := range got.Spans {
				w, ok := byID[g.SpanID]
				if !ok {
					t.Errorf("%s: span %s is not in %s", round, g.SpanID, want[0].File)
					continue
				}
				events += len(g.Logs)
				parent := ""
				for _, r := range g.References {
					if r.RefType == "CHILD_OF" {
						parent = r.SpanID
					}
				}
				svc := got.Processes[g.ProcessID].ServiceName
				if g.OperationName != w.Name || parent != w.ParentSpanID || len(g.Logs) != w.Events || svc != w.Service ||
					g.StartTime != w.Start/1000 || g.Duration != (w.End-w.Start)/1000 {
					t.Errorf("%s: %s span %s: Jaeger has %q parent %q, %d events, service %q, start %d, %d µs; the file %q parent %q, %d events, service %q, start %d, %d µs",
						round, w.File, g.SpanID, g.OperationName, parent, len(g.Logs), svc, g.StartTime, g.Duration,
						w.Name, w.ParentSpanID, w.Events, w.Service, w.Start/1000, (w.End-w.Start)/1000)
				}
				if parent != "" {
					if _, ok := byID[parent]; !ok {
						t.Errorf("%s: %s span %s: parent %s is not in the trace", round, w.File, g.SpanID, parent)
					}
				}
			}
			if item6Landed {
				checkNaming(t, id, want)
			}
		}
		return spans, events
	}
	zeroChat, untimed := 0, 0
	for _, sp := range written {
		starts := map[int64]bool{}
		for _, s := range sp {
			starts[s.Start] = true
		}
		for _, s := range sp {
			if strings.HasPrefix(s.Name, "chat") && s.End == s.Start {
				if len(starts) > 1 {
					zeroChat++
				} else {
					untimed++
				}
			}
		}
	}
	t.Logf("zero-length chat spans: %d in timed traces, %d in traces of logs with no times", zeroChat, untimed)
	spans, events := check("first export")
	t.Logf("first export: %d traces, %d spans, %d events read back from Jaeger", len(written), spans, events)
	if spans != nspans {
		t.Errorf("Jaeger holds %d spans, the files %d", spans, nspans)
	}

	// the same run again: the manifest knows what Jaeger has, nothing is sent
	code, _, se = runCLI(t, "", args...)
	if code != 0 || !strings.Contains(se, "convert: exported 0 traces (0 spans)") || !strings.Contains(se, "already had were not sent again") {
		t.Errorf("second run: exit %d, want nothing sent:\n%s", code, se)
	}
	if spans, _ := check("after a second run"); spans != nspans {
		t.Errorf("after a second run Jaeger holds %d spans, want %d", spans, nspans)
	}
	if item6Landed {
		checkServices(t, j)
	}

	// --reexport sends everything again, and Jaeger then shows duplicate
	// spans: what the manifest spares a plain rerun (and proof that the
	// duplicate check above can fail).
	code, _, se = runCLI(t, "", append(args, "--reexport")...)
	if code != 0 || !strings.Contains(se, fmt.Sprintf("exported %d traces", len(written))) {
		t.Fatalf("--reexport: exit %d\n%s", code, se)
	}
	total := 0
	for id, w := range written {
		tr := j.trace(t, id)
		total += len(tr.Spans)
		if os.Getenv("JAEGER_DEBUG") != "" {
			t.Logf("%s %s: %d -> %d", w[0].File, id, len(w), len(tr.Spans))
		}
	}
	// Jaeger's query adjusters fold some exact copies (its span-hash
	// deduper), not all: the API shows more spans than were written.
	if total <= nspans {
		t.Errorf("after --reexport Jaeger holds %d spans, want more than the %d written: the duplicate check cannot fail", total, nspans)
	}
	t.Logf("after --reexport: %d spans in Jaeger for %d written (the duplicates a plain rerun avoids)", total, nspans)
}

func countTraceFiles(t *testing.T, out string) int {
	n := 0
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".otel.jsonl") {
			n++
		}
		return nil
	})
	return n
}

// checkNaming holds the assertions of issue 19 item 6 for one trace.
func checkNaming(t *testing.T, id string, spans []otlpSpan) {
	t.Helper()
	if s := spans[0]; s.Service == "convert" {
		t.Errorf("%s: service.name is convert, want the agent", s.File)
	}
	// A log with no times (Cursor's transcripts) cannot give a span a
	// length: every span of it starts at the same instant (issue 18 is about
	// such traces). Every other trace must have none of zero length.
	starts := map[int64]bool{}
	for _, s := range spans {
		starts[s.Start] = true
	}
	timed := len(starts) > 1
	for _, s := range spans {
		if s.ParentSpanID == "" && strings.HasPrefix(s.Name, "invoke_agent") && !strings.HasPrefix(s.Name, "invoke_agent ") {
			t.Errorf("%s: root span %q, want \"invoke_agent <agent>\"", s.File, s.Name)
		}
		if s.Name == "execute_tool" {
			t.Errorf("%s: span %s is execute_tool, want \"execute_tool <tool>\"", s.File, s.SpanID)
		}
		if timed && strings.HasPrefix(s.Name, "chat") && s.End == s.Start {
			t.Errorf("%s: chat span %s has zero length", s.File, s.SpanID)
		}
	}
	roots := 0
	for _, s := range spans {
		if s.ParentSpanID == "" {
			roots++
		}
	}
	if roots != 1 {
		t.Errorf("trace %s (%s): %d root spans, want 1 (subagents nest under their parent)", id, spans[0].File, roots)
	}
}

// checkServices: Jaeger lists one service per agent, not convert.
func checkServices(t *testing.T, j *jaeger) {
	t.Helper()
	resp, err := http.Get("http://" + j.query + "/api/services")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ Data []string }
	json.NewDecoder(resp.Body).Decode(&r)
	sort.Strings(r.Data)
	if len(r.Data) < 3 || sort.SearchStrings(r.Data, "convert") < len(r.Data) && r.Data[sort.SearchStrings(r.Data, "convert")] == "convert" {
		t.Errorf("services %v: want one per agent and no \"convert\"", r.Data)
	}
}
