package main

// Issue #49, item 4: an export stays where it was sent. An endpoint that
// answers with a redirect is a failure naming where it pointed: the trace
// and the --otlp-header values never reach the other server, and the
// manifest does not record the endpoint as having the trace, so the next
// run to it sends it.

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestExportFollowsNoRedirect(t *testing.T) {
	for _, k := range otelVars {
		t.Setenv(k, "")
	}
	repo, _ := filepath.Abs("../..")
	for _, proto := range []string{"http/protobuf", "http/json"} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			t.Run(proto+" "+http.StatusText(code), func(t *testing.T) {
				other := newOTLPServer(t, answer{status: 200, body: `{}`})
				var mu sync.Mutex
				redirect := true
				var got []*http.Request
				first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, r)
					if redirect {
						http.Redirect(w, r, other.URL+"/v1/traces?token=CANARY", code)
						return
					}
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`{}`))
				}))
				defer first.Close()
				out := t.TempDir()
				args := []string{"run", "--out", out, "-c", "session", "--otlp-endpoint", first.URL, "--otlp-protocol", proto,
					"--otlp-header", "X-Api-Key=CANARY-key", "--otlp-header", "Authorization=Bearer CANARY-token",
					filepath.Join(repo, "samples", "session", "basic.jsonl")}
				exit, _, se := runCLI(t, "", args...)
				if exit != exitFailed {
					t.Errorf("exit %d, want %d (the export failed):\n%s", exit, exitFailed, se)
				}
				if want := "HTTP " + strconv.Itoa(code); !strings.Contains(se, want) || !strings.Contains(se, "redirect") || !strings.Contains(se, strings.TrimPrefix(other.URL, "http://")) {
					t.Errorf("stderr does not say the endpoint redirected to %s:\n%s", other.URL, se)
				}
				other.mu.Lock()
				if n := len(other.requests); n != 0 {
					t.Errorf("the server redirected to got %d requests (headers %v)", n, other.requests[0].Header)
				}
				other.mu.Unlock()
				mu.Lock()
				redirect = false
				mu.Unlock()
				// the manifest must not say the endpoint has the trace
				exit, _, se = runCLI(t, "", args...)
				if exit != 0 || !strings.Contains(se, "exported 1 trace (") {
					t.Errorf("the rerun to an endpoint that now accepts did not send the trace: exit %d\n%s", exit, se)
				}
				mu.Lock()
				if len(got) != 2 {
					t.Errorf("the endpoint got %d requests, want 2 (one per run)", len(got))
				}
				mu.Unlock()
			})
		}
	}
}
