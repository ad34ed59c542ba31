package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
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
		protocol string // of the posts: http/protobuf when ""
		gzip     bool
		resource map[string]string // attributes each posted resource has, the files not
		nostderr string            // stderr must not hold this
		once     string            // stderr must hold this exactly once
	}{
		{name: "flag endpoint, header", answers: []answer{ok},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-header", "Authorization=Bearer CANARY,with-comma", sample("session", "basic")},
			exit: 0, requests: 1, path: "/v1/traces", header: [2]string{"Authorization", "Bearer CANARY,with-comma"}, traces: outName("basic", ".otel.jsonl")},
		{name: "a token in the endpoint's path stays off --json", answers: []answer{ok},
			args: []string{"--json", "--otlp-endpoint", "{{URL}}/CANARY-token/v1/traces", sample("session", "basic")},
			exit: 0, requests: 1, path: "/CANARY-token/v1/traces", traces: outName("basic", ".otel.jsonl")},
		{name: "jsonl format posts the line written", answers: []answer{ok},
			args: []string{"--otel-format", "jsonl", "--otlp-endpoint", "{{URL}}/", sample("mcp_tool_search", "basic")},
			exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl")},
		{name: "http/json with gzip from the environment", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"), protocol: "http/json", gzip: true,
			stderr: []string{"exported 1 trace (1 span) to {{URL}} over http/json (gzip)"}},
		{name: "protocol and compression flags win", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-protocol", "http/protobuf", "--otlp-compression", "none", sample("session", "basic")},
			exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl")},
		{name: "resource attributes go to the endpoint, not to the files", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_RESOURCE_ATTRIBUTES": "team=red%20one,service.name=ignored", "OTEL_SERVICE_NAME": "svc-from-env"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			resource: map[string]string{"team": "red one", "service.name": "svc-from-env"}},
		{name: "--service-name wins over OTEL_SERVICE_NAME", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_RESOURCE_ATTRIBUTES": "team=red", "OTEL_SERVICE_NAME": "svc-from-env"},
			args: []string{"--service-name", "team-agents", sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			resource: map[string]string{"team": "red", "service.name": "team-agents"}},
		{name: "bad variables warn, name the variable and use the defaults", answers: []answer{ok},
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_EXPORTER_OTLP_HEADERS": "CANARY", "OTEL_EXPORTER_OTLP_TIMEOUT": "CANARY",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "CANARY", "OTEL_EXPORTER_OTLP_COMPRESSION": "CANARY", "OTEL_RESOURCE_ATTRIBUTES": "a=b,CANARY"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			stderr: []string{"warning: OTEL_EXPORTER_OTLP_HEADERS: entry 1 has no '='", "warning: OTEL_EXPORTER_OTLP_TIMEOUT: not a number of milliseconds",
				"warning: OTEL_EXPORTER_OTLP_PROTOCOL: not http/protobuf, http/json or grpc; ignored", "warning: OTEL_EXPORTER_OTLP_COMPRESSION: not gzip or none; ignored",
				"warning: OTEL_RESOURCE_ATTRIBUTES: entry 2 has no '='", "over http/protobuf"}},
		{name: "a bad endpoint variable warns and exports nothing", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318/CANARY"},
			args: []string{sample("session", "basic")}, exit: 0,
			stderr: []string{"warning: OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP endpoint must be an absolute http:// or https:// URL; nothing is exported", "1 of 1 inputs converted"}},
		{name: "bad variables say nothing when nothing is exported", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "CANARY"},
			args: []string{sample("session", "basic")}, exit: 0, nostderr: "warning"},
		{name: "base endpoint and headers from the environment", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}/otlp", "OTEL_EXPORTER_OTLP_HEADERS": "x-team=a%20b%2Cc"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/otlp/v1/traces", header: [2]string{"X-Team", "a b,c"}, traces: outName("basic", ".otel.jsonl")},
		{name: "traces endpoint from the environment is used as is", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "{{URL}}/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 1, path: "/custom", traces: outName("basic", ".otel.jsonl")},
		{name: "OTEL_TRACES_EXPORTER=none: the environment asks for no export", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "{{URL}}", "OTEL_TRACES_EXPORTER": "none"},
			args: []string{sample("session", "basic")}, exit: 0, requests: 0},
		{name: "the flag wins over the environment", answers: []answer{ok},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 0, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl")},
		{name: "each input of a directory once", answers: []answer{ok},
			args: []string{"--converter", "session", "--jobs", "2", "--otlp-endpoint", "{{URL}}", dir},
			exit: 0, requests: 3, path: "/v1/traces", traces: "*.otel.jsonl"},
		{name: "503 then 200", answers: []answer{{status: 503}, ok},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 0, requests: 2, path: "/v1/traces", traces: outName("basic", ".otel.jsonl")},
		{name: "503 until the retries run out", answers: []answer{{status: 503}},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-retries", "1", sample("session", "basic")},
			exit: 1, requests: 2, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			stderr: []string{"basic.jsonl: session: otlp export: {{URL}}: HTTP 503 Service Unavailable (gave up after 2 attempts) (the files were written)", "1 of 1 inputs converted", "1 of 1 trace not exported"}},
		{name: "slow endpoint", answers: []answer{{status: 200, delay: 5 * time.Second}},
			args: []string{"--otlp-endpoint", "{{URL}}", "--otlp-timeout", "100ms", "--otlp-retries", "0", sample("session", "basic")},
			exit: 1, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			stderr: []string{"otlp export: {{URL}}: no response within the 100ms export timeout (the files were written)"}},
		{name: "rejected spans fail the input", answers: []answer{{status: 200, body: `{"partialSuccess":{"rejectedSpans":"1","errorMessage":"CANARY"}}`}},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("session", "basic")}, exit: 1, requests: 1, path: "/v1/traces", traces: outName("basic", ".otel.jsonl"),
			stderr: []string{"HTTP 200 OK, but the endpoint rejected 1 span(s) (partial success)"}},
		{name: "stopped endpoint: one line, at once, no path", args: []string{"--otlp-endpoint", stopped.URL + "/CANARY-token", "--otlp-retries", "3", "-c", "session", "--jobs", "3", dir}, exit: 1,
			stderr: []string{"otlp export: " + stopped.URL + ": connection refused (not retried: is a Collector listening there?) (the files were written)", "3 of 3 traces not exported"},
			once:   "connection refused"},
		{name: "a failed input is not exported", answers: []answer{ok},
			args: []string{"--otlp-endpoint", "{{URL}}", sample("mcp_tool_search", "bad_definition_outside_index")}, exit: 1, requests: 0},
		{name: "export settings without an endpoint", args: []string{"--otlp-retries", "1", sample("session", "basic")}, exit: 2,
			stderr: []string{"need --otlp-endpoint"}},
		{name: "bad protocol flag", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-protocol", "http", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-protocol must be http/protobuf, http/json or grpc"}},
		{name: "bad compression flag", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-compression", "zstd", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-compression must be gzip or none"}},
		{name: "bad header flag, value not echoed", args: []string{"--otlp-endpoint", "http://127.0.0.1:1", "--otlp-header", "Authorization: Bearer CANARY=", sample("session", "basic")}, exit: 2,
			stderr: []string{"--otlp-header (occurrence 1): the header name is not a valid HTTP token"}},
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
			for _, k := range otelVars {
				t.Setenv(k, fill(tt.env[k]))
			}
			out := t.TempDir()
			args := []string{"convert", "run", "--out", out}
			for _, a := range tt.args {
				args = append(args, fill(a))
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
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
			if n := strings.Count(stderr.String(), tt.once); tt.once != "" && n != 1 {
				t.Errorf("stderr holds %q %d times, want once:\n%s", tt.once, n, stderr.String())
			}
			if tt.nostderr != "" && strings.Contains(stderr.String(), tt.nostderr) {
				t.Errorf("stderr holds %q:\n%s", tt.nostderr, stderr.String())
			}
			if d := time.Since(start); tt.answers == nil && d > 2*time.Second {
				t.Errorf("took %s without an endpoint to wait for", d)
			}
			if srv == nil {
				return
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.requests) != tt.requests {
				t.Fatalf("%d requests, want %d\nstderr: %s", len(srv.requests), tt.requests, stderr.String())
			}
			wantType := "application/x-protobuf"
			if tt.protocol == "http/json" {
				wantType = "application/json"
			}
			wantEncoding := ""
			if tt.gzip {
				wantEncoding = "gzip"
			}
			for _, r := range srv.requests {
				if r.Method != http.MethodPost || r.URL.Path != tt.path || r.Header.Get("Content-Type") != wantType || r.Header.Get("Content-Encoding") != wantEncoding {
					t.Errorf("got %s %s (%s, encoding %q), want POST %s (%s, encoding %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"), tt.path, wantType, wantEncoding)
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
				if strings.Contains(string(b), "svc-from-env") || strings.Contains(string(b), `"team"`) {
					t.Errorf("%s holds a resource attribute of the environment", f)
				}
				written = append(written, canonicalTrace(t, f, b, "application/json", "", nil, slices.Collect(maps.Keys(tt.resource))))
			}
			var posted []string
			for i, b := range srv.bodies {
				posted = append(posted, canonicalTrace(t, fmt.Sprintf("request %d", i+1), b, srv.requests[i].Header.Get("Content-Type"),
					srv.requests[i].Header.Get("Content-Encoding"), tt.resource, slices.Collect(maps.Keys(tt.resource))))
			}
			slices.Sort(written)
			slices.Sort(posted)
			posted = slices.Compact(posted) // retries post the same bytes again
			if len(written) == 0 || !slices.Equal(written, posted) {
				t.Errorf("the posted traces (%d distinct) are not the %d trace files written (%s)", len(posted), len(written), tt.traces)
			}
		})
	}
}

// otelVars are the variables TestRunExport sets (empty unless a case
// gives them), so that the caller's environment does not leak in.
var otelVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_TRACES_EXPORTER",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_RESOURCE_ATTRIBUTES", "OTEL_SERVICE_NAME"}

// canonicalTrace decodes a trace (a file, or a request body with its
// content type and encoding) with the Collector's types, checks that every
// resource has the attributes of want, takes the drop keys out, and
// returns pdata's canonical JSON, to compare a posted trace with a
// written one.
func canonicalTrace(t *testing.T, from string, b []byte, contentType, encoding string, want map[string]string, drop []string) string {
	t.Helper()
	if encoding == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err == nil {
			b, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Fatalf("%s: not gzip: %v", from, err)
		}
	}
	req := ptraceotlp.NewExportRequest()
	var err error
	if contentType == "application/json" {
		err = req.UnmarshalJSON(b)
	} else {
		err = req.UnmarshalProto(b)
	}
	if err != nil {
		t.Fatalf("%s: not OTLP (%s): %v", from, contentType, err)
	}
	rss := req.Traces().ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		attrs := rss.At(i).Resource().Attributes()
		for k, v := range want {
			got, ok := attrs.Get(k)
			if !ok || got.AsString() != v {
				t.Errorf("%s: resource %d: %s = %q, want %q", from, i, k, got.AsString(), v)
			}
		}
		for _, k := range drop {
			attrs.Remove(k)
		}
	}
	out, err := req.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
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
		{"first run sends every trace", srv, nil, 3, "convert: exported 3 traces (3 spans) to {{URL}} over http/protobuf"},
		{"a rerun sends nothing", srv, nil, 0, "convert: exported 0 traces (0 spans) to {{URL}} over http/protobuf; 3 it already had were not sent again (--reexport sends them)"},
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

// TestExportTimeApart: the closing table and --json set the export's time
// apart from the conversion's, so a slow or unreachable endpoint does not
// read as slow conversion.
func TestExportTimeApart(t *testing.T) {
	for _, k := range otelVars {
		t.Setenv(k, "")
	}
	repo, _ := filepath.Abs("../..")
	in := filepath.Join(repo, "samples", "session", "basic.jsonl")
	srv := newOTLPServer(t, answer{status: 200, body: `{}`, delay: 1500 * time.Millisecond})

	code, _, se := runCLI(t, "", "run", "--out", t.TempDir(), "--otlp-endpoint", srv.URL, in)
	m := regexp.MustCompile(`converted in (\d+(?:\.\d)?) (ms|s) \(and (\d+(?:\.\d)?) (ms|s) exporting\)`).FindStringSubmatch(se)
	if code != 0 || m == nil {
		t.Fatalf("exit %d; the headline does not set the export apart:\n%s", code, se)
	}
	ms := func(v, unit string) float64 {
		f, _ := strconv.ParseFloat(v, 64)
		if unit == "s" {
			f *= 1000
		}
		return f
	}
	if conv := ms(m[1], m[2]); conv >= 1400 {
		t.Errorf("conversion took %.0f ms: the export's 1.5 s is counted in it:\n%s", conv, se)
	}
	if exp := ms(m[3], m[4]); exp < 1400 {
		t.Errorf("export took %.0f ms, the endpoint waited 1.5 s:\n%s", exp, se)
	}

	code, so, se := runCLI(t, "", "run", "--json", "--force", "--reexport", "--out", t.TempDir(), "--otlp-endpoint", srv.URL, in)
	validateSummary(t, so)
	var sum summary
	if err := json.Unmarshal([]byte(so), &sum); err != nil || code != 0 || sum.Export == nil {
		t.Fatalf("exit %d, %v:\n%s\n%s", code, err, so, se)
	}
	if sum.Export.ElapsedMS < 1400 || sum.ElapsedMS < sum.Export.ElapsedMS || sum.Export.Protocol != "http/protobuf" || sum.Export.Compression != "none" || sum.Export.Endpoint != srv.URL {
		t.Errorf("export %+v in a run of %d ms", *sum.Export, sum.ElapsedMS)
	}
}
