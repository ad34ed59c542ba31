package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFleet starts the fleet on loopback (a front Collector with the
// load-balancing exporter and two back Collectors writing files), exports
// every bundled sample through the front with convert run in three
// batches, restarting one back end between the first and the last, and
// proves every trace written by convert arrives whole at exactly one back
// end, with no span missing and none twice.
//
// It needs the fleet Collector and convert: OTELCOL_FLEET_BIN and
// CONVERT_BIN, or it builds them (make test-fleet does).
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three Collectors")
	}
	tmp := t.TempDir()
	col := binary(t, "OTELCOL_FLEET_BIN", tmp, ".", "otelcol-fleet")
	conv := binary(t, "CONVERT_BIN", tmp, "../../cmd/convert", "convert")

	b1, b2, front := freePort(t), freePort(t), freePort(t)
	back1 := startCollector(t, col, "back.yaml", tmp, "back1-a", "FLEET_BACK_GRPC="+b1, "FLEET_BACK_OUT="+filepath.Join(tmp, "back1-a.jsonl"))
	startCollector(t, col, "back.yaml", tmp, "back2", "FLEET_BACK_GRPC="+b2, "FLEET_BACK_OUT="+filepath.Join(tmp, "back2.jsonl"))
	frontCol := startCollector(t, col, "front.yaml", tmp, "front", "FLEET_FRONT_HTTP="+front, fmt.Sprintf("FLEET_BACKENDS=[%s, %s]", b1, b2))
	for _, a := range []string{b1, b2, front} {
		waitListening(t, a)
	}

	var dirs []string // the sample folders holding logs (not audit's receipts)
	all, _ := filepath.Glob("../../samples/*")
	for _, d := range all {
		if logs, _ := filepath.Glob(filepath.Join(d, "*.jsonl")); len(logs) > 0 || filepath.Base(d) == "claude_code" {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	if len(dirs) < 6 {
		t.Fatalf("found %d sample folders", len(dirs))
	}
	third := len(dirs) / 3
	batches := [][]string{dirs[:third], dirs[third : 2*third], dirs[2*third:]}
	export := func(i int) {
		out := filepath.Join(tmp, fmt.Sprintf("out%d", i))
		for _, d := range batches[i] {
			cmd := exec.Command(conv, "run", "--jobs", "2", "--out", filepath.Join(out, filepath.Base(d)),
				"--otlp-endpoint", "http://"+front, "--otlp-retries", "0", d)
			b, _ := cmd.CombinedOutput() // exit 1 or 3: a bad_* sample failed, as it should
			if code := cmd.ProcessState.ExitCode(); code == 2 || code < 0 || strings.Contains(string(b), "otlp export") {
				t.Fatalf("convert run %s: exit %d\n%s", d, code, b)
			}
		}
	}
	export(0)
	stop(t, back1) // back end 1 goes away ...
	export(1)      // ... its share of this batch waits in the front's queue
	startCollector(t, col, "back.yaml", tmp, "back1-b", "FLEET_BACK_GRPC="+b1, "FLEET_BACK_OUT="+filepath.Join(tmp, "back1-b.jsonl"))
	waitListening(t, b1)
	export(2)

	want := map[string]map[string]int{} // trace id -> span id -> count, from the files convert wrote
	var files []string
	for i := range batches {
		filepath.WalkDir(filepath.Join(tmp, fmt.Sprintf("out%d", i)), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".otel.jsonl") {
				files = append(files, p)
				addSpans(t, want, p, readDoc(t, p))
			}
			return nil
		})
	}
	if len(want) < 20 {
		t.Fatalf("convert wrote only %d traces (%d files)", len(want), len(files))
	}
	// The front delivers asynchronously: wait until the back ends hold as
	// many spans as convert wrote, then stop everything (flushing files).
	total := 0
	for _, s := range want {
		for _, n := range s {
			total += n
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for received(t, tmp) < total && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	stop(t, frontCol)
	time.Sleep(300 * time.Millisecond)

	at := map[string]map[string]bool{} // trace id -> back ends that got any of its spans
	got := map[string]map[string]int{}
	perBack := map[string]int{}
	for _, name := range []string{"back1-a", "back1-b", "back2"} {
		backend := strings.TrimSuffix(strings.TrimSuffix(name, "-a"), "-b")
		f := filepath.Join(tmp, name+".jsonl")
		for _, doc := range readLines(t, f) {
			for _, tr := range addSpans(t, got, f, doc) {
				if at[tr] == nil {
					at[tr] = map[string]bool{}
				}
				at[tr][backend] = true
				perBack[name]++
			}
		}
	}
	for tr, spans := range want {
		if len(at[tr]) != 1 {
			t.Errorf("trace %s arrived at %d back ends, want exactly 1", tr, len(at[tr]))
		}
		for s, n := range spans {
			if got[tr][s] != n {
				t.Errorf("trace %s span %s arrived %d times, want %d", tr, s, got[tr][s], n)
			}
		}
	}
	for tr := range got {
		if want[tr] == nil {
			t.Errorf("trace %s arrived but convert never wrote it", tr)
		}
	}
	t.Logf("%d traces, %d spans; spans per back end: %v", len(want), total, perBack)
	// Which back end a trace goes to follows the hash ring of the (random)
	// ports, so batch 1 may all land on back2: what must hold is that both
	// back ends took traces, and that the restarted one took the traces
	// routed to it while it was down.
	if perBack["back2"] == 0 || perBack["back1-b"] == 0 {
		t.Errorf("load not spread over both back ends, or nothing reached the restarted one: %v", perBack)
	}
}

// binary returns $env, or builds pkg into dir.
func binary(t *testing.T, env, dir, pkg, name string) string {
	if p := os.Getenv(env); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s (or set %s): %v\n%s", pkg, env, err, b)
	}
	return out
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startCollector(t *testing.T, bin, config, dir, name string, env ...string) *exec.Cmd {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", config)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			stop(t, cmd)
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("%s log:\n%s", name, b)
		}
	})
	return cmd
}

// stop ends a Collector gracefully (SIGTERM: it drains and flushes).
func stop(t *testing.T, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("a Collector did not stop within 30 s")
	}
}

func waitListening(t *testing.T, addr string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s after 30 s", addr)
}

type tracesData struct {
	ResourceSpans []struct {
		ScopeSpans []struct {
			Spans []struct {
				TraceID string `json:"traceId"`
				SpanID  string `json:"spanId"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

// addSpans counts the spans of one TracesData document into m and returns
// the trace id of each span.
func addSpans(t *testing.T, m map[string]map[string]int, file string, doc []byte) []string {
	var td tracesData
	if err := json.Unmarshal(doc, &td); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var traces []string
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if m[s.TraceID] == nil {
					m[s.TraceID] = map[string]int{}
				}
				m[s.TraceID][s.SpanID]++
				traces = append(traces, s.TraceID)
			}
		}
	}
	return traces
}

func readDoc(t *testing.T, f string) []byte {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readLines returns the complete lines of f: a back end may be writing the
// last one while the test polls, so a line without its newline yet is not
// counted (it is read on the next poll).
func readLines(t *testing.T, f string) [][]byte {
	b, err := os.ReadFile(f)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // torn: still being written
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		b = b[i+1:]
	}
	return out
}

// received counts the spans the back ends have written so far.
func received(t *testing.T, dir string) int {
	n := 0
	for _, name := range []string{"back1-a", "back1-b", "back2"} {
		m := map[string]map[string]int{}
		for _, doc := range readLines(t, filepath.Join(dir, name+".jsonl")) {
			n += len(addSpans(t, m, name, doc))
		}
	}
	return n
}
