package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// otlpServer records what convert posts and answers each request with the
// next of its statuses (the last one repeats).
type otlpServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
}

type answer struct {
	status int
	body   string
	delay  time.Duration
}

func newOTLPServer(t *testing.T, answers ...answer) *otlpServer {
	t.Helper()
	s := &otlpServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		a := answers[min(len(s.requests), len(answers)-1)]
		s.requests, s.bodies = append(s.requests, r), append(s.bodies, b)
		s.mu.Unlock()
		if a.delay > 0 {
			select {
			case <-time.After(a.delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestRunExport(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	sample := func(conv, name string) string { return filepath.Join(repo, "samples", conv, name+".jsonl") }
	ok := answer{status: 200, body: `{"partialSuccess":{}}`}
	stopped := httptest.NewServer(http.NotFoundHandler())
	stopped.Close()
	dir := t.TempDir() // three session logs that convert (two with skipped lines)
	for _, name := range []string{"basic", "bad_junk_lines", "bad_invalid_utf8"} {
		b, err := os.ReadFile(sample("session", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		answers  []answer
		env      map[string]string // {{URL}} is the server's address
		args     []string          // after convert run --out DIR; {{URL}} as above
		exit     int
		stderr   []string
		requests int    // how many posts the server must see
		path     string // the request path, when requests > 0
		header   [2]string
		traces   string // glob (in the output dir) of the files the posts must equal, in any order
	}{
		{name: "flag endpoint, header", answers: []answer{ok},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-header", "Authorization=Bearer CANARY,with-comma", sample("session", "basic")},
			exit: 0, requests: 1, path: "/v1/traces", header: [2]string{"Authorization", "Bearer CANARY,with-comma"}, traces: "basic.otel.jsonl"},
		{name: "jsonl format posts the line written", answers: []answer{ok},
			args: []string{"--otel-format", "jsonl", "--otlp-endpoint", "{{URL}}/", sample("mcp_tool_search", "basic")},
			exit: 0, requests: 1, path: "/v1/traces", traces: "basic.otel.jsonl"},
		{name: "base endpoint and headers from the environment", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}/otlp", "OTEL_EXPORTER_OTLP_HEADERS": "x-team=a%20b%2Cc"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/otlp/v1/traces", header: [2]string{"X-Team", "a b,c"}, traces: "basic.otel.jsonl"},
		{name: "traces endpoint from the environment is used as is", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "{{URL}}/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/custom", traces: "basic.otel.jsonl"},
		{name: "OTEL_TRACES_EXPORTER=none: the environment asks for no export", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_TRACES_EXPORTER": "none"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 0},
		{name: "the flag wins over the environment", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: "basic.otel.jsonl"},
		{name: "each input of a directory once", answers: []answer{ok},
			args: []string{"--converter", "session", "--jobs", "2", "--otlp-endpoint", "{{URL}}", dir},
			exit: 0, requests: 3, path: "/v1/traces", traces: "*.otel.jsonl"},
		{name: "503 then 200", answers: []answer{{status: 503}, ok},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 0, requests: 2, path: "/v1/traces", traces: "basic.otel.jsonl"},
		{name: "503 until the retries run out", answers: []answer{{status: 503}},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-retries", "1", sample("session", "basic")},
			exit: 1, requests: 2, path: "/v1/traces", traces: "basic.otel.jsonl",
			stderr: []string{"basic.jsonl: session: otlp export: {{URL}}/v1/traces: HTTP 503 Service Unavailable (gave up after 2 attempts) (the files were written)", "1 of 1 inputs converted", "1 of 1 trace not exported"}},
		{name: "slow endpoint", answers: []answer{{status: 200, delay: 5 * time.Second}},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-timeout", "100ms", "--otlp-retries", "0", sample("session", "basic")},
			exit: 1, requests: 1, path: "/v1/traces", traces: "basic.otel.jsonl",
			stderr: []string{"otlp export: {{URL}}/v1/traces: no response within 100ms (the files were written)"}},
		{name: "rejected spans fail the input", answers: []answer{{status: 200, body: `{"partialSuccess":{"rejectedSpans":"1","errorMessage":"CANARY"}}`}},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 1, requests: 1, path: "/v1/traces", traces: "basic.otel.jsonl",
			stderr: []string{"HTTP 200 OK, but the endpoint rejected 1 span(s) (partial success)"}},
		{name: "stopped endpoint", args: []string{"--otlp-endpoint", stopped.URL, "--otlp-retries", "1", sample("session", "basic")}, exit: 1,
			stderr: []string{"otlp export: " + stopped.URL + "/v1/traces: cannot reach the endpoint: connection refused (gave up after 2 attempts) (the files were written)"}},
		{name: "a failed input is not exported", answers: []answer{ok},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("mcp_tool_search", "bad_definition_outside_index")}, exit: 1, requests: 0},
		{name: "export settings without an endpoint", args: []string{"--otlp-retries", "1", sample("session", "basic")}, exit: 2,
			stderr: []string{"need --otlp-endpoint"}},
		{name: "bad header flag, value not echoed", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-header", "Authorization: Bearer CANARY=", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-header (occurrence 1): the header name is not a valid HTTP token"}},
		{name: "bad header variable, value not echoed", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS": "CANARY"},
			args: []string{sample("session", "basic")}, exit: 2, stderr: []string{"OTEL_EXPORTER_OTLP_HEADERS: entry 1 has no '='"}},
		{name: "endpoint without a scheme", args: []string{"--otlp-endpoint", "localhost:4318", sample("session", "basic")}, exit: 2,
			stderr: []string{"absolute http:// or https:// URL"}},
		{name: "zero timeout", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-timeout", "0s", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-timeout must be more than 0"}},
		{name: "negative retries", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-retries", "-1", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-retries must be between 0 and 100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *otlpServer
			url := "http://127.0.0.1:1"
			if tt.answers != nil {
				srv = newOTLPServer(t, tt.answers...)
				url = srv.URL
			}
			fill := func(s string) string { return strings.ReplaceAll(s, "{{URL}}", url) }
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_TRACES_EXPORTER"} {
				t.Setenv(k, fill(tt.env[k]))
			}
			out := t.TempDir()
			args := []string{"convert", "run", "--out", out}
			for _, a := range tt.args {
				args = append(args, fill(a))
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != tt.exit {
				t.Errorf("exit = %d, want %d\nstderr: %s", code, tt.exit, stderr.String())
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), fill(s)) {
					t.Errorf("stderr lacks %q:\n%s", fill(s), stderr.String())
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), "CANARY") {
				t.Errorf("a canary or a header value reached stdout or stderr:\n%s", stderr.String())
			}
			if srv == nil {
				return
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.requests) != tt.requests {
				t.Fatalf("%d requests, want %d\nstderr: %s", len(srv.requests), tt.requests, stderr.String())
			}
			for _, r := range srv.requests {
				if r.Method != http.MethodPost || r.URL.Path != tt.path || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("got %s %s (%s), want POST %s (application/json)", r.Method, r.URL.Path, r.Header.Get("Content-Type"), tt.path)
				}
				if tt.header[0] != "" && r.Header.Get(tt.header[0]) != tt.header[1] {
					t.Errorf("header %s = %q, want %q", tt.header[0], r.Header.Get(tt.header[0]), tt.header[1])
				}
			}
			if tt.traces == "" {
				return
			}
			files, _ := filepath.Glob(filepath.Join(out, tt.traces))
			var written []string
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				written = append(written, string(b))
			}
			var posted []string
			for _, b := range srv.bodies {
				posted = append(posted, string(b))
			}
			slices.Sort(written)
			slices.Sort(posted)
			posted = slices.Compact(posted) // retries post the same bytes again
			if len(written) == 0 || !slices.Equal(written, posted) {
				t.Errorf("the posted bodies (%d distinct) are not the %d trace files written (%s)", len(posted), len(written), tt.traces)
			}
		})
	}
}

// TestExportOnce: the manifest records what the endpoint accepted, so a
// rerun sends nothing again (--reexport does); after one trace gives up on
// the endpoint the others are not tried, and the summary tells converted
// from exported.
func TestExportOnce(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	for _, name := range []string{"basic", "bad_junk_lines", "bad_invalid_utf8"} {
		copyTo(t, filepath.Join(repo, "samples", "session", name+".jsonl"), filepath.Join(dir, name+".jsonl"))
	}
	srv := newOTLPServer(t, answer{status: 200, body: `{}`})
	other := newOTLPServer(t, answer{status: 200, body: `{}`})
	out := t.TempDir()
	steps := []struct {
		name     string
		srv      *otlpServer
		extra    []string
		requests int // new requests to srv in this step
		stderr   string
	}{
		{"first run sends every trace", srv, nil, 3, "convert: exported 3 traces (3 spans) to {{URL}}/v1/traces"},
		{"a rerun sends nothing", srv, nil, 0, "convert: exported 0 traces (0 spans) to {{URL}}/v1/traces; 3 it already had were not sent again (--reexport sends them)"},
		{"another endpoint gets them all", other, nil, 3, "exported 3 traces"},
		{"--reexport sends them again", srv, []string{"--reexport"}, 3, "exported 3 traces"},
		{"--force converts again, but the endpoint has those bytes", srv, []string{"--force"}, 0, "3 of 3 inputs converted"},
	}
	for _, st := range steps {
		st.srv.mu.Lock()
		before := len(st.srv.requests)
		st.srv.mu.Unlock()
		code, _, se := runCLI(t, "", append([]string{"run", dir, "--out", out, "-c", "session", "--otlp-endpoint", st.srv.URL}, st.extra...)...)
		st.srv.mu.Lock()
		n := len(st.srv.requests) - before
		st.srv.mu.Unlock()
		if want := strings.ReplaceAll(st.stderr, "{{URL}}", st.srv.URL); code != 0 || n != st.requests || !strings.Contains(se, want) {
			t.Errorf("%s: exit %d, %d requests (want %d), stderr lacks %q:\n%s", st.name, code, n, st.requests, want, se)
		}
	}

	down := newOTLPServer(t, answer{status: 503})
	start := time.Now()
	code, so, se := runCLI(t, "", "run", dir, "--out", t.TempDir(), "-j", "1", "--json", "--otlp-endpoint", down.URL, "--otlp-retries", "1")
	down.mu.Lock()
	n := len(down.requests)
	down.mu.Unlock()
	if code != 1 || n != 2 {
		t.Errorf("endpoint down: exit %d, %d requests (want 2: the first trace and its retry)\n%s", code, n, se)
	}
	if strings.Count(se, "otlp export:") != 1 {
		t.Errorf("want the export failure once:\n%s", se)
	}
	validateSummary(t, so)
	var sum summary
	json.Unmarshal([]byte(so), &sum)
	if sum.Converted != 3 || sum.Export == nil || sum.Export.Exported != 0 || sum.Export.Failed != 3 || sum.Status != "failed" {
		t.Errorf("summary: %+v %+v", sum, sum.Export)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %s", el)
	}
}
