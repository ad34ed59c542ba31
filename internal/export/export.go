// Package export sends traces to an OpenTelemetry endpoint over OTLP/HTTP
// with JSON encoding: one POST per trace document, bounded retries with
// backoff on the status codes the OTLP specification calls retryable
// (429, 502, 503, 504) and on connection failures, honouring Retry-After.
//
// Errors name the endpoint (without credentials or query) and what went
// wrong; they never carry the request body, header values or the server's
// response body.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrDown is returned, without a request, by every export after one that
// gave up on the endpoint (all retries spent on connection failures,
// timeouts or retryable statuses): one run does not spend its retries on
// every trace against an endpoint that is down.
var ErrDown = errors.New("not sent: the endpoint failed an earlier export in this run")

// Defaults of Config's zero values.
const (
	DefaultTimeout = 10 * time.Second
	DefaultRetries = 3
	DefaultBackoff = 1 * time.Second
	DefaultMaxWait = 30 * time.Second
)

// maxResponse bounds how much of a response body is read.
const maxResponse = 64 << 10

// Config sets up an Exporter.
type Config struct {
	// URL is the full traces endpoint, e.g. http://127.0.0.1:4318/v1/traces.
	URL string
	// Headers are added to every request (authentication, say).
	Headers map[string]string
	// Timeout bounds each attempt; DefaultTimeout when 0.
	Timeout time.Duration
	// Retries is how many times a failed attempt is retried (0: never).
	Retries int
	// Backoff is the first wait between attempts; it doubles each retry,
	// with jitter. DefaultBackoff when 0.
	Backoff time.Duration
	// MaxWait caps one wait. A Retry-After longer than MaxWait ends the
	// export with an error instead of blocking. DefaultMaxWait when 0.
	MaxWait time.Duration
	// Client sends the requests; http.DefaultClient's transport when nil.
	Client *http.Client
}

// Exporter posts OTLP/JSON trace documents. It is safe for concurrent use.
type Exporter struct {
	cfg    Config
	name   string // the endpoint for messages: no credentials, no query
	client *http.Client
	down   atomic.Bool // an export gave up: the others fail fast
}

// Name is the endpoint as messages and the manifest show it: scheme, host
// and path, never credentials or a query.
func (e *Exporter) Name() string { return e.name }

// New checks the configuration and returns an Exporter.
func New(cfg Config) (*Exporter, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the OTLP endpoint must be an absolute http:// or https:// URL")
	}
	for k, v := range cfg.Headers {
		if err := checkHeader(k, v); err != nil {
			return nil, err
		}
	}
	if cfg.Retries < 0 || cfg.Timeout < 0 || cfg.Backoff < 0 || cfg.MaxWait < 0 {
		return nil, errors.New("OTLP retries, timeout and waits must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{}
	}
	return &Exporter{cfg: cfg, name: Redact(u), client: client}, nil
}

// Redact renders an endpoint for messages: scheme, host and path only.
func Redact(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// Export posts one OTLP/JSON TracesData document (an
// ExportTraceServiceRequest has the same JSON shape). It returns nil only
// when the endpoint accepted every span.
func (e *Exporter) Export(ctx context.Context, body []byte) error {
	var last error
	attempts := e.cfg.Retries + 1
	for i := 0; i < attempts; i++ {
		if e.down.Load() {
			return fmt.Errorf("%s: %w", e.name, ErrDown)
		}
		retryAfter, err := e.attempt(ctx, body)
		if err == nil {
			return nil
		}
		var f *failure
		if !errors.As(err, &f) || !f.retry || ctx.Err() != nil {
			return err
		}
		last = err
		if i == attempts-1 {
			break
		}
		wait := e.backoff(i)
		if retryAfter > 0 {
			if retryAfter > e.cfg.MaxWait {
				return fmt.Errorf("%s: %s; the server asked to retry after %s, longer than the %s limit", e.name, f.msg, retryAfter, e.cfg.MaxWait)
			}
			wait = retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: export cancelled: %w", e.name, ctx.Err())
		case <-t.C:
		}
	}
	e.down.Store(true)
	if attempts > 1 {
		return fmt.Errorf("%w (gave up after %d attempts)", last, attempts)
	}
	return last
}

// failure is one failed attempt; retry says whether another may succeed.
type failure struct {
	name, msg string
	retry     bool
}

func (f *failure) Error() string { return f.name + ": " + f.msg }

// attempt makes one request. On a retryable status it also returns the
// wait the server asked for (0 when none).
func (e *Exporter) attempt(ctx context.Context, body []byte) (time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, e.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return 0, &failure{name: e.name, msg: "cannot build the request"}
	}
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return 0, fmt.Errorf("%s: export cancelled: %w", e.name, ctx.Err())
		case actx.Err() != nil:
			return 0, &failure{name: e.name, msg: fmt.Sprintf("no response within %s", e.cfg.Timeout), retry: true}
		}
		return 0, &failure{name: e.name, msg: "cannot reach the endpoint: " + transportReason(err), retry: true}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil && resp.StatusCode/100 == 2 {
		if actx.Err() != nil && ctx.Err() == nil {
			return 0, &failure{name: e.name, msg: fmt.Sprintf("no response within %s", e.cfg.Timeout), retry: true}
		}
		return 0, &failure{name: e.name, msg: "the response was cut off", retry: true}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse)) // let the connection be reused
	status := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case resp.StatusCode/100 == 2:
		if n := rejectedSpans(data); n > 0 {
			return 0, &failure{name: e.name, msg: fmt.Sprintf("%s, but the endpoint rejected %d span(s) (partial success)", status, n)}
		}
		return 0, nil
	case retryable(resp.StatusCode):
		return retryAfter(resp.Header.Get("Retry-After"), time.Now()), &failure{name: e.name, msg: status, retry: true}
	default:
		return 0, &failure{name: e.name, msg: status}
	}
}

// retryable are the statuses OTLP/HTTP says a client may retry.
func retryable(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the wait before retry i+1: Backoff doubled i times, capped at
// MaxWait, with up to half of it taken off at random so that parallel
// exports do not retry in step.
func (e *Exporter) backoff(i int) time.Duration {
	d := e.cfg.Backoff
	for ; i > 0 && d < e.cfg.MaxWait; i-- {
		d *= 2
	}
	d = min(d, e.cfg.MaxWait)
	return d - time.Duration(rand.Int64N(int64(d/2)+1))
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date.
// 0 means none or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		if s > int64(24*time.Hour/time.Second) {
			return 24 * time.Hour
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// rejectedSpans reads partialSuccess.rejectedSpans from an OTLP/JSON
// response (a string or a number); 0 when absent or unreadable.
func rejectedSpans(body []byte) int64 {
	var r struct {
		PartialSuccess struct {
			RejectedSpans json.RawMessage `json:"rejectedSpans"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(body, &r) != nil {
		return 0
	}
	s := strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// transportReason is a short cause for a failed connection.
func transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL, query included
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	return err.Error()
}
