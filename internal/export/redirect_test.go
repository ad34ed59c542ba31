package export

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recorder is an HTTP server that keeps every request's headers and
// answers with h.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.headers)
}

// TestExportFollowsNoRedirect (issue #49): an endpoint answering 3xx,
// to another origin or to another path of its own, fails the export with
// a message naming where it pointed (scheme, host and port, never the
// path or query) and no server but the endpoint named gets a request: not
// the trace, not a header. Not retried, and the endpoint is down for the
// run.
func TestExportFollowsNoRedirect(t *testing.T) {
	headers := map[string]string{"X-Api-Key": canary + "-key", "Authorization": "Bearer " + canary}
	for _, proto := range []string{ProtocolHTTPProtobuf, ProtocolHTTPJSON} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			for _, sameOrigin := range []bool{false, true} {
				name := proto + " " + strconv.Itoa(code)
				if sameOrigin {
					name += " same origin"
				}
				t.Run(name, func(t *testing.T) {
					other := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) })
					var endpoint *recorder
					endpoint = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path == "/elsewhere" {
							w.Write([]byte(`{}`))
							return
						}
						to := other.URL + "/v1/traces?token=" + canary
						if sameOrigin {
							to = "/elsewhere?token=" + canary
						}
						http.Redirect(w, r, to, code)
					})
					e := newExporter(t, Config{URL: endpoint.URL + "/v1/traces", Protocol: proto, Headers: headers, Retries: 3})
					err := e.Export(context.Background(), body)
					if err == nil {
						t.Fatal("a redirect counted as exported")
					}
					msg := err.Error()
					want := "HTTP " + strconv.Itoa(code)
					if sameOrigin {
						want += " " + http.StatusText(code) + " to another path of the same origin"
					} else {
						want += " " + http.StatusText(code) + " to " + other.URL + " (another origin)"
					}
					if !strings.Contains(msg, want) || !strings.Contains(msg, "redirects are not followed") || strings.Contains(msg, canary) {
						t.Errorf("error %q, want it to say %q", msg, want)
					}
					if n := endpoint.count(); n != 1 {
						t.Errorf("the endpoint got %d requests, want 1 (a redirect is not retried)", n)
					}
					if n := other.count(); n != 0 {
						t.Errorf("the server redirected to got %d requests: %v", n, other.headers)
					}
					if err := e.Export(context.Background(), body); err == nil || !strings.Contains(err.Error(), ErrDown.Error()) {
						t.Errorf("the next export: %v, want %v", err, ErrDown)
					}
				})
			}
		}
	}
}

// TestExportClientKeepsNoRedirect: a Client the caller passes is used with
// redirects off too, and the caller's Client itself is left as it was.
func TestExportClientKeepsNoRedirect(t *testing.T) {
	other := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) })
	endpoint := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL, 307) })
	mine := &http.Client{}
	e := newExporter(t, Config{URL: endpoint.URL, Client: mine})
	if err := e.Export(context.Background(), body); err == nil || other.count() != 0 {
		t.Fatalf("export: %v; the other server got %d requests", err, other.count())
	}
	if mine.CheckRedirect != nil {
		t.Error("the caller's Client was changed")
	}
}

// TestGRPCNoRedirect: gRPC has no redirects; an HTTP/2 server answering
// a gRPC call with a 307 fails the export and the server it names gets
// nothing.
func TestGRPCNoRedirect(t *testing.T) {
	other := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL, 307)
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	e := newExporter(t, Config{URL: "http://" + net.JoinHostPort(host, port), Protocol: ProtocolGRPC, Headers: map[string]string{"x-api-key": canary}})
	defer e.Close()
	err := e.Export(context.Background(), body)
	if err == nil {
		t.Fatal("a gRPC call answered with HTTP 307 counted as exported")
	}
	if strings.Contains(err.Error(), canary) {
		t.Errorf("the error carries a canary: %v", err)
	}
	if n := other.count(); n != 0 {
		t.Errorf("the server the 307 named got %d requests", n)
	}
}
