package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// canary marks every value that must never reach an error message.
const canary = "CANARY"

var body = []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"CANARY"}]}]}]}`)

// server answers each request with the next step (the last one repeats) and
// counts the requests.
type step struct {
	status     int
	body       string
	retryAfter string
	delay      time.Duration // the handler waits this long, or until the client gives up
}

func newServer(t *testing.T, steps ...step) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		s := steps[min(i, len(steps)-1)]
		io.Copy(io.Discard, r.Body) // so that a client hanging up cancels r.Context()
		if s.delay > 0 {
			select {
			case <-time.After(s.delay):
			case <-r.Context().Done():
				return
			}
		}
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newExporter(t *testing.T, cfg Config) *Exporter {
	t.Helper()
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestExportOutcomes(t *testing.T) {
	ok := step{status: 200, body: `{"partialSuccess":{}}`}
	tests := []struct {
		name     string
		steps    []step
		cfg      Config
		wantErr  string // "" means success
		wantHits int32  // 0: between 2 and 10 (the retries a timeout leaves room for vary with the jitter)
	}{
		{"accepted", []step{ok}, Config{Retries: 3}, "", 1},
		{"accepted with empty body", []step{{status: 200}}, Config{Retries: 3}, "", 1},
		{"partial success without rejections", []step{{status: 200, body: `{"partialSuccess":{"rejectedSpans":"0","errorMessage":"CANARY note"}}`}}, Config{}, "", 1},
		{"503 then 200", []step{{status: 503}, ok}, Config{Retries: 3}, "", 2},
		{"502, 504 then 200", []step{{status: 502}, {status: 504}, ok}, Config{Retries: 2}, "", 3},
		{"503 until the retries run out", []step{{status: 503, body: "CANARY"}}, Config{Retries: 2}, "HTTP 503 Service Unavailable (gave up after 3 attempts)", 3},
		{"503 without retries", []step{{status: 503}}, Config{}, "HTTP 503 Service Unavailable", 1},
		{"400 is not retried", []step{{status: 400, body: `{"code":3,"message":"CANARY"}`}, ok}, Config{Retries: 3}, "HTTP 400 Bad Request", 1},
		{"401 is not retried", []step{{status: 401}, ok}, Config{Retries: 3}, "HTTP 401 Unauthorized", 1},
		{"rejected spans as a string", []step{{status: 200, body: `{"partialSuccess":{"rejectedSpans":"2","errorMessage":"CANARY"}}`}, ok}, Config{Retries: 3}, "rejected 2 span(s) (partial success)", 1},
		{"rejected spans as a number", []step{{status: 200, body: `{"partialSuccess":{"rejectedSpans":1}}`}}, Config{}, "rejected 1 span(s)", 1},
		{"slow endpoint times out", []step{{status: 200, delay: 5 * time.Second}}, Config{Timeout: 50 * time.Millisecond, Retries: 1}, "no response within the 50ms export timeout", 1},
		{"retries stop at the export timeout", []step{{status: 503}}, Config{Timeout: 300 * time.Millisecond, Retries: 50, Backoff: 40 * time.Millisecond}, "HTTP 503 Service Unavailable (gave up after", 0},
		{"429 with a Retry-After past the timeout", []step{{status: 429, retryAfter: "120"}, ok}, Config{Retries: 3}, "HTTP 429 Too Many Requests; the server asked to retry after 2m0s, past the 10s export timeout", 1},
		{"429 with a short Retry-After", []step{{status: 429, retryAfter: "1"}, ok}, Config{Retries: 3}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := newServer(t, tt.steps...)
			tt.cfg.URL = srv.URL + "/v1/traces"
			err := newExporter(t, tt.cfg).Export(context.Background(), body)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error, want %q", tt.wantErr)
			case err != nil && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			case err != nil && !strings.HasPrefix(err.Error(), srv.URL+": "):
				t.Fatalf("error %q does not start with the endpoint", err)
			case err != nil && strings.Contains(err.Error(), canary):
				t.Fatalf("error carries response content: %q", err)
			}
			if got := hits.Load(); (tt.wantHits > 0 && got != tt.wantHits) || (tt.wantHits == 0 && (got < 2 || got > 10)) {
				t.Fatalf("%d requests, want %d", got, tt.wantHits)
			}
		})
	}
}

// TestExportRequest checks what each HTTP protocol puts on the wire,
// decoding the body with the Collector's own types: the same span, the
// resource attributes merged in, the content type and encoding.
func TestExportRequest(t *testing.T) {
	tests := []struct {
		protocol, compression string
		resource              []Attr
		contentType           string
		sameBytes             bool // the document as written
	}{
		{ProtocolHTTPProtobuf, "", nil, "application/x-protobuf", false},
		{ProtocolHTTPProtobuf, CompressionGzip, []Attr{{"team", "red"}}, "application/x-protobuf", false},
		{ProtocolHTTPJSON, "", nil, "application/json", true},
		{ProtocolHTTPJSON, CompressionGzip, nil, "application/json", true},
		{ProtocolHTTPJSON, CompressionNone, []Attr{{"service.name", "svc"}, {"team", "red"}}, "application/json", false},
	}
	for _, tt := range tests {
		t.Run(tt.protocol+" "+tt.compression+fmt.Sprint(len(tt.resource)), func(t *testing.T) {
			var mu sync.Mutex
			var got *http.Request
			var gotBody []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				got = r
				gotBody, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", tt.contentType)
				if tt.protocol == ProtocolHTTPJSON {
					io.WriteString(w, `{}`)
				}
			}))
			defer srv.Close()
			e := newExporter(t, Config{URL: srv.URL + "/v1/traces", Protocol: tt.protocol, Compression: tt.compression, Resource: tt.resource,
				Headers: map[string]string{"Authorization": "Bearer t0k", "Content-Type": "text/plain", "Content-Encoding": "br"}})
			if err := e.Export(context.Background(), traceDoc); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			wantEncoding := ""
			if tt.compression == CompressionGzip {
				wantEncoding = "gzip"
				zr, err := gzip.NewReader(bytes.NewReader(gotBody))
				if err != nil {
					t.Fatal(err)
				}
				if gotBody, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			checks := []struct{ what, got, want string }{
				{"method", got.Method, "POST"},
				{"path", got.URL.Path, "/v1/traces"},
				{"content type", got.Header.Get("Content-Type"), tt.contentType},
				{"content encoding", got.Header.Get("Content-Encoding"), wantEncoding},
				{"authorization", got.Header.Get("Authorization"), "Bearer t0k"},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if tt.sameBytes && !bytes.Equal(gotBody, traceDoc) {
				t.Errorf("body is not the document as written:\n%s", gotBody)
			}
			req := ptraceotlp.NewExportRequest()
			var err error
			if tt.protocol == ProtocolHTTPJSON {
				err = req.UnmarshalJSON(gotBody)
			} else {
				err = req.UnmarshalProto(gotBody)
			}
			if err != nil {
				t.Fatalf("the body does not decode as %s: %v", tt.protocol, err)
			}
			checkTrace(t, req.Traces(), tt.resource)
		})
	}
}

// traceDoc is an OTLP/JSON document with one span and a resource.
var traceDoc = []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}},{"key":"telemetry.sdk.name","value":{"stringValue":"convert"}}]},` +
	`"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"session","kind":1,` +
	`"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000"}]}]}]}`)

// checkTrace checks td is traceDoc with resource merged in.
func checkTrace(t *testing.T, td ptrace.Traces, resource []Attr) {
	t.Helper()
	if td.SpanCount() != 1 || td.ResourceSpans().Len() != 1 {
		t.Fatalf("%d spans in %d resources, want 1 in 1", td.SpanCount(), td.ResourceSpans().Len())
	}
	rs := td.ResourceSpans().At(0)
	span := rs.ScopeSpans().At(0).Spans().At(0)
	if span.Name() != "session" || span.TraceID().String() != "0102030405060708090a0b0c0d0e0f10" || span.SpanID().String() != "0102030405060708" {
		t.Errorf("span %q %s %s", span.Name(), span.TraceID(), span.SpanID())
	}
	want := map[string]string{"service.name": "claude-code", "telemetry.sdk.name": "convert"}
	for _, a := range resource {
		want[a.Key] = a.Value
	}
	got := map[string]string{}
	rs.Resource().Attributes().Range(func(k string, v pcommon.Value) bool { got[k] = v.AsString(); return true })
	if !maps.Equal(got, want) {
		t.Errorf("resource %v, want %v", got, want)
	}
}

// TestExportRefused: nothing listens there. The export fails at once,
// with one line naming scheme, host and port (never the path, the query,
// credentials or headers), and the next export is not tried.
func TestExportRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there any more
	for _, protocol := range []string{ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC} {
		t.Run(protocol, func(t *testing.T) {
			u := strings.Replace(addr, "http://", "http://user:"+canary+"@", 1) + "/" + canary + "/v1/traces?token=" + canary
			if protocol == ProtocolGRPC {
				u = addr
			}
			e := newExporter(t, Config{URL: u, Protocol: protocol, Retries: 3, Backoff: time.Second, Headers: map[string]string{"X-Key": canary}})
			start := time.Now()
			err := e.Export(context.Background(), traceDoc)
			if err == nil {
				t.Fatal("export to a stopped endpoint succeeded")
			}
			want := addr + ": connection refused (not retried: is a Collector listening there?)"
			if err.Error() != want {
				t.Fatalf("error %q, want %q", err, want)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("took %s: a refused connection is retried", d)
			}
			if err := e.Export(context.Background(), traceDoc); !errors.Is(err, ErrDown) {
				t.Fatalf("the next export: %v, want ErrDown", err)
			}
		})
	}
}

func TestExportHonoursRetryAfter(t *testing.T) {
	srv, hits := newServer(t, step{status: 429, retryAfter: "1"}, step{status: 200})
	e := newExporter(t, Config{URL: srv.URL, Protocol: ProtocolHTTPJSON, Retries: 1, Backoff: time.Millisecond})
	start := time.Now()
	if err := e.Export(context.Background(), body); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("retried after %s, the server asked for 1s", d)
	}
	if hits.Load() != 2 {
		t.Fatalf("%d requests, want 2", hits.Load())
	}
}

func TestExportCancelled(t *testing.T) {
	srv, hits := newServer(t, step{status: 503})
	e := newExporter(t, Config{URL: srv.URL, Retries: 5, Backoff: 10 * time.Second, MaxWait: 10 * time.Second, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	err := e.Export(ctx, body)
	if err == nil || !strings.Contains(err.Error(), "export cancelled") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if time.Since(start) > 5*time.Second || hits.Load() != 1 {
		t.Fatalf("cancellation did not stop the retries: %d requests in %s", hits.Load(), time.Since(start))
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty URL", Config{}, "absolute http:// or https:// URL"},
		{"no scheme", Config{URL: "localhost:4318"}, "absolute http:// or https:// URL"},
		{"other scheme", Config{URL: "grpc://localhost:4317"}, "absolute http:// or https:// URL"},
		{"bad header name", Config{URL: "http://h", Headers: map[string]string{"Bad " + canary: "v"}}, "not a valid HTTP token"},
		{"header value with a newline", Config{URL: "http://h", Headers: map[string]string{"K": canary + "\r\nX: y"}}, "control characters"},
		{"negative retries", Config{URL: "http://h", Retries: -1}, "must not be negative"},
		{"unknown protocol", Config{URL: "http://h", Protocol: "http/" + canary}, "must be http/protobuf, http/json or grpc"},
		{"unknown compression", Config{URL: "http://h", Compression: "zstd" + canary}, "must be gzip or none"},
		{"grpc endpoint with a path", Config{URL: "h:4317/" + canary, Protocol: ProtocolGRPC}, "http://host:port, https://host:port or host:port"},
		{"grpc endpoint of another scheme", Config{URL: "unix://" + canary, Protocol: ProtocolGRPC}, "http://host:port, https://host:port or host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), canary) {
				t.Fatalf("error carries raw content: %q", err)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"5", 5 * time.Second},
		{" 2 ", 2 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{"999999999", 24 * time.Hour},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tt.h, got, tt.want)
		}
	}
}

func TestRejectedSpans(t *testing.T) {
	tests := []struct {
		body string
		want int64
	}{
		{``, 0},
		{`{}`, 0},
		{`{"partialSuccess":{}}`, 0},
		{`{"partialSuccess":{"rejectedSpans":"7"}}`, 7},
		{`{"partialSuccess":{"rejectedSpans":3,"errorMessage":"x"}}`, 3},
		{`not json`, 0},
	}
	for _, tt := range tests {
		if got := rejectedSpansJSON([]byte(tt.body)); got != tt.want {
			t.Errorf("rejectedSpans(%s) = %d, want %d", tt.body, got, tt.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	e := newExporter(t, Config{URL: "http://h", Backoff: 100 * time.Millisecond, MaxWait: time.Second})
	tests := []struct {
		retry    int
		min, max time.Duration
	}{
		{0, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 400 * time.Millisecond, 800 * time.Millisecond},
		{10, 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		for range 50 {
			if d := e.backoff(tt.retry); d < tt.min || d > tt.max {
				t.Fatalf("backoff(%d) = %s, want within [%s, %s]", tt.retry, d, tt.min, tt.max)
			}
		}
	}
}

// TestExportSplitsLargeTraces: a trace over MaxRequestBytes goes in several
// requests, each under the limit (but for a span larger on its own), which
// together hold every span once with its resource and scope.
func TestExportSplitsLargeTraces(t *testing.T) {
	td := ptrace.NewTraces()
	for r := 0; r < 2; r++ {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", fmt.Sprintf("svc-%d", r))
		for sc := 0; sc < 2; sc++ {
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(fmt.Sprintf("scope-%d", sc))
			for i := 0; i < 50; i++ {
				sp := ss.Spans().AppendEmpty()
				sp.SetTraceID(pcommon.TraceID{1, 2, 3})
				sp.SetSpanID(pcommon.SpanID{byte(r), byte(sc), byte(i), 1})
				sp.SetName(fmt.Sprintf("span-%d-%d-%d", r, sc, i))
				sp.Attributes().PutStr("pad", strings.Repeat("x", 200))
			}
		}
	}
	doc, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 4 << 10
	for _, protocol := range []string{ProtocolHTTPProtobuf, ProtocolHTTPJSON} {
		t.Run(protocol, func(t *testing.T) {
			var mu sync.Mutex
			var bodies [][]byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, b)
				mu.Unlock()
			}))
			defer srv.Close()
			e := newExporter(t, Config{URL: srv.URL, Protocol: protocol, MaxRequestBytes: limit})
			if err := e.Export(context.Background(), doc); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) < 10 {
				t.Fatalf("%d requests for a trace of %d bytes with a %d-byte limit", len(bodies), (&ptrace.ProtoMarshaler{}).TracesSize(td), limit)
			}
			seen := map[string]string{} // span name -> service/scope
			for i, b := range bodies {
				req := ptraceotlp.NewExportRequest()
				if protocol == ProtocolHTTPJSON {
					err = req.UnmarshalJSON(b)
				} else {
					err = req.UnmarshalProto(b)
				}
				if err != nil {
					t.Fatal(err)
				}
				if n := (&ptrace.ProtoMarshaler{}).TracesSize(req.Traces()); n > limit {
					t.Errorf("request %d: %d bytes, over the %d limit", i, n, limit)
				}
				rss := req.Traces().ResourceSpans()
				for r := 0; r < rss.Len(); r++ {
					svc, _ := rss.At(r).Resource().Attributes().Get("service.name")
					sss := rss.At(r).ScopeSpans()
					for s := 0; s < sss.Len(); s++ {
						spans := sss.At(s).Spans()
						for k := 0; k < spans.Len(); k++ {
							name := spans.At(k).Name()
							if _, dup := seen[name]; dup {
								t.Errorf("%s sent twice", name)
							}
							seen[name] = svc.AsString() + "/" + sss.At(s).Scope().Name()
						}
					}
				}
			}
			if len(seen) != 200 {
				t.Errorf("%d spans arrived, want 200", len(seen))
			}
			for name, where := range seen {
				var r, sc, i int
				fmt.Sscanf(name, "span-%d-%d-%d", &r, &sc, &i)
				if want := fmt.Sprintf("svc-%d/scope-%d", r, sc); where != want {
					t.Errorf("%s arrived under %s, want %s", name, where, want)
				}
			}
		})
	}
}

// TestExportUntrustedCertificate: a certificate the system does not trust
// is not a transient failure: one attempt, one line, the endpoint down.
func TestExportUntrustedCertificate(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the client refuses
	srv.StartTLS()
	defer srv.Close()
	e := newExporter(t, Config{URL: srv.URL + "/v1/traces", Retries: 3, Backoff: time.Second})
	start := time.Now()
	err := e.Export(context.Background(), traceDoc)
	if err == nil || err.Error() != srv.URL+": its TLS certificate is not trusted here (not retried)" {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %s: retried", d)
	}
}
