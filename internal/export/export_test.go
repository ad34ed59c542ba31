package export

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
		wantHits int32
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
		{"slow endpoint times out", []step{{status: 200, delay: 5 * time.Second}}, Config{Timeout: 50 * time.Millisecond, Retries: 1}, "no response within 50ms (gave up after 2 attempts)", 2},
		{"slow once, then fast", []step{{status: 200, delay: 5 * time.Second}, ok}, Config{Timeout: 50 * time.Millisecond, Retries: 1}, "", 2},
		{"429 with a Retry-After over the limit", []step{{status: 429, retryAfter: "120"}, ok}, Config{Retries: 3, MaxWait: time.Second}, "HTTP 429 Too Many Requests; the server asked to retry after 2m0s, longer than the 1s limit", 1},
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
			case err != nil && !strings.HasPrefix(err.Error(), srv.URL+"/v1/traces: "):
				t.Fatalf("error %q does not start with the endpoint", err)
			case err != nil && strings.Contains(err.Error(), canary):
				t.Fatalf("error carries response content: %q", err)
			}
			if got := hits.Load(); got != tt.wantHits {
				t.Fatalf("%d requests, want %d", got, tt.wantHits)
			}
		})
	}
}

func TestExportRequest(t *testing.T) {
	var mu sync.Mutex
	var got *http.Request
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = r
		gotBody, _ = io.ReadAll(r.Body)
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	e := newExporter(t, Config{URL: srv.URL + "/v1/traces", Headers: map[string]string{"Authorization": "Bearer t0k", "Content-Type": "text/plain"}})
	if err := e.Export(context.Background(), body); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	checks := []struct{ what, got, want string }{
		{"method", got.Method, "POST"},
		{"path", got.URL.Path, "/v1/traces"},
		{"content type", got.Header.Get("Content-Type"), "application/json"},
		{"authorization", got.Header.Get("Authorization"), "Bearer t0k"},
		{"body", string(gotBody), string(body)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
}

func TestExportStoppedEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there any more
	u := strings.Replace(addr, "http://", "http://user:"+canary+"@", 1) + "/v1/traces?token=" + canary
	e := newExporter(t, Config{URL: u, Retries: 2, Headers: map[string]string{"X-Key": canary}})
	start := time.Now()
	err := e.Export(context.Background(), body)
	if err == nil {
		t.Fatal("export to a stopped endpoint succeeded")
	}
	want := addr + "/v1/traces: cannot reach the endpoint: connection refused (gave up after 3 attempts)"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s: retries are not bounded", time.Since(start))
	}
}

func TestExportHonoursRetryAfter(t *testing.T) {
	srv, hits := newServer(t, step{status: 429, retryAfter: "1"}, step{status: 200})
	e := newExporter(t, Config{URL: srv.URL, Retries: 1, Backoff: time.Millisecond})
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
	e := newExporter(t, Config{URL: srv.URL, Retries: 5, Backoff: 10 * time.Second})
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
		if got := rejectedSpans([]byte(tt.body)); got != tt.want {
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
