// Package export sends traces to an OpenTelemetry endpoint over OTLP, as
// the OpenTelemetry SDKs do: http/protobuf (the specification's default),
// http/json or grpc, optionally gzip-compressed, with the wire types and the
// gRPC client of the OpenTelemetry Collector's pdata module rather than
// encoders of its own. One request per trace document; the resource
// attributes of the environment (OTEL_RESOURCE_ATTRIBUTES,
// OTEL_SERVICE_NAME) are merged into every resource sent.
//
// A refused connection fails at once; transient failures (HTTP 429, 502,
// 503, 504, a dropped connection, gRPC Unavailable and the other codes the
// specification calls retryable) are retried with backoff, honouring
// Retry-After and gRPC RetryInfo, within the export's timeout.
//
// No redirect is followed: an endpoint answering 3xx fails the export,
// saying where it pointed, so a trace and its headers go only to the
// endpoint named, and only that endpoint's acceptance counts as exported.
//
// Errors name the endpoint by scheme, host and port only (a path can hold
// a token) and say what went wrong; they never carry the request body,
// header values or the server's response.
package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	grpcgzip "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ErrDown is returned, without a request, by every export after one that
// gave up on the endpoint (a refused connection, or all retries spent on
// timeouts or retryable answers): one run does not spend its retries on
// every trace against an endpoint that is down.
var ErrDown = errors.New("not sent: the endpoint failed an earlier export in this run")

// Defaults of Config's zero values.
const (
	DefaultTimeout = 10 * time.Second
	DefaultRetries = 3
	DefaultBackoff = 500 * time.Millisecond
	DefaultMaxWait = 5 * time.Second
	// DefaultMaxRequestBytes keeps a request under the 4 MiB a Collector's
	// gRPC receiver takes by default.
	DefaultMaxRequestBytes = 3 << 20
)

// maxResponse bounds how much of a response body is read.
const maxResponse = 64 << 10

// Config sets up an Exporter.
type Config struct {
	// URL is the endpoint. For http/protobuf and http/json the full traces
	// URL (http://127.0.0.1:4318/v1/traces); for grpc http://host:port
	// (plaintext), https://host:port (TLS), or host:port (TLS unless
	// Insecure); a path is ignored.
	URL string
	// Protocol is ProtocolHTTPProtobuf (when ""), ProtocolHTTPJSON or
	// ProtocolGRPC.
	Protocol string
	// Compression is CompressionGzip, or CompressionNone (when "").
	Compression string
	// Insecure makes a gRPC endpoint given as host:port plaintext.
	Insecure bool
	// Headers are added to every request (gRPC: as metadata, keys in
	// lower case).
	Headers map[string]string
	// Resource is merged into every resource of every trace sent (a later
	// attribute of one key wins, and these win over the trace's own).
	Resource []Attr
	// Timeout bounds one export, every attempt and wait included;
	// DefaultTimeout when 0.
	Timeout time.Duration
	// Retries is how many times a failed attempt is retried (0: never).
	Retries int
	// Backoff is the first wait between attempts; it doubles each retry,
	// with jitter. DefaultBackoff when 0.
	Backoff time.Duration
	// MaxWait caps one backoff wait. DefaultMaxWait when 0.
	MaxWait time.Duration
	// Client sends the HTTP requests; a fresh http.Client when nil. Its
	// CheckRedirect is replaced: no redirect is followed.
	Client *http.Client
	// MaxRequestBytes splits a larger trace into several requests (its
	// protobuf size); DefaultMaxRequestBytes when 0.
	MaxRequestBytes int
}

// Exporter sends trace documents. It is safe for concurrent use.
type Exporter struct {
	cfg     Config
	name    string // scheme://host:port, for messages
	key     string // what the manifest records
	client  *http.Client
	conn    *grpc.ClientConn
	grpc    ptraceotlp.GRPCClient
	md      metadata.MD
	dialErr atomic.Pointer[error] // the last gRPC dial's error; nil after a success
	down    atomic.Bool           // an export gave up: the others fail fast
}

// Name is the endpoint as messages show it: scheme, host and port, never a
// path, credentials or a query.
func (e *Exporter) Name() string { return e.name }

// Key identifies the endpoint in the manifest: scheme, host and path for
// http/*, scheme, host and port for grpc; never credentials or a query.
func (e *Exporter) Key() string { return e.key }

// Protocol is the protocol in use.
func (e *Exporter) Protocol() string { return e.cfg.Protocol }

// Compression is the compression in use (none or gzip).
func (e *Exporter) Compression() string { return e.cfg.Compression }

// New checks the configuration and returns an Exporter. Close it when
// done.
func New(cfg Config) (*Exporter, error) {
	switch cfg.Protocol {
	case "":
		cfg.Protocol = DefaultProtocol
	case ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC:
	default:
		return nil, errors.New("the OTLP protocol must be http/protobuf, http/json or grpc")
	}
	switch cfg.Compression {
	case "":
		cfg.Compression = CompressionNone
	case CompressionNone, CompressionGzip:
	default:
		return nil, errors.New("the OTLP compression must be gzip or none")
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
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	e := &Exporter{cfg: cfg}
	if cfg.Protocol == ProtocolGRPC {
		if err := e.dialGRPC(); err != nil {
			return nil, err
		}
		return e, nil
	}
	if err := CheckEndpoint(cfg.Protocol, cfg.URL); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.URL)
	e.name, e.key = hostPort(u.Scheme, u.Host), Redact(u)
	client := http.Client{}
	if cfg.Client != nil {
		client = *cfg.Client
	}
	client.CheckRedirect = noRedirect
	e.client = &client
	return e, nil
}

// noRedirect makes the client return a redirect as the answer it is.
// Followed, a 307 or 308 would re-send the trace and every header but
// Authorization (Go's client drops only that one, and only for another
// domain) to wherever the endpoint pointed, and the manifest would record
// the endpoint as having a trace it never kept. OTLP names one endpoint;
// a redirect is reported as the failure it is, naming where it pointed, so
// the user can set that endpoint if they trust it (issue #49).
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// dialGRPC sets up the gRPC client (it connects on the first export).
func (e *Exporter) dialGRPC() error {
	if err := CheckEndpoint(ProtocolGRPC, e.cfg.URL); err != nil {
		return err
	}
	scheme, host := "", e.cfg.URL
	if strings.Contains(host, "://") {
		u, _ := url.Parse(host)
		scheme, host = u.Scheme, u.Host
	} else {
		scheme = "https"
		if e.cfg.Insecure {
			scheme = "http"
		}
	}
	e.name = hostPort(scheme, host)
	e.key = e.name
	target := strings.TrimPrefix(e.name, scheme+"://")
	creds := insecure.NewCredentials()
	if scheme == "https" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	dialer := func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			e.dialErr.Store(&err)
		} else {
			e.dialErr.Store(nil)
		}
		return c, err
	}
	conn, err := grpc.NewClient("passthrough:///"+target, grpc.WithTransportCredentials(creds), grpc.WithContextDialer(dialer))
	if err != nil {
		return errors.New("the OTLP gRPC endpoint cannot be used")
	}
	e.conn, e.grpc = conn, ptraceotlp.NewGRPCClient(conn)
	e.md = metadata.MD{}
	for k, v := range e.cfg.Headers {
		e.md.Set(strings.ToLower(k), v)
	}
	return nil
}

// Close releases the gRPC connection, if any.
func (e *Exporter) Close() error {
	if e.conn != nil {
		return e.conn.Close()
	}
	return nil
}

// hostPort renders scheme://host:port, the port made explicit.
func hostPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err != nil {
		port := "80"
		if scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	return scheme + "://" + host
}

// Redact renders an endpoint for the manifest: scheme, host and path only.
func Redact(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// Export sends one OTLP/JSON TracesData document (as written to
// X.otel.json, or a line of X.otel.jsonl). It returns nil only when the
// endpoint accepted every span.
func (e *Exporter) Export(ctx context.Context, body []byte) error {
	if e.down.Load() {
		return fmt.Errorf("%s: %w", e.name, ErrDown)
	}
	reqs, err := e.encode(body)
	if err != nil {
		return err
	}
	for i, r := range reqs {
		if err := e.send(ctx, r.payload, r.req); err != nil {
			if len(reqs) > 1 {
				return fmt.Errorf("%w (request %d of the %d this trace was split into)", err, i+1, len(reqs))
			}
			return err
		}
	}
	return nil
}

// send makes one request, retried within the timeout.
func (e *Exporter) send(ctx context.Context, payload []byte, req ptraceotlp.ExportRequest) error {
	tctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	deadline, _ := tctx.Deadline()
	var last error
	attempts := 0
	for {
		attempts++
		retryAfter, err := e.attempt(ctx, tctx, payload, req)
		if err == nil {
			return nil
		}
		var f *failure
		if !errors.As(err, &f) || ctx.Err() != nil {
			return err
		}
		if !f.retry {
			if f.down {
				return e.giveUp(err)
			}
			return err
		}
		last = err
		if attempts > e.cfg.Retries {
			break
		}
		wait := e.backoff(attempts - 1)
		if retryAfter > 0 {
			wait = retryAfter
		}
		if left := time.Until(deadline); wait >= left {
			if retryAfter > 0 {
				return e.giveUp(fmt.Errorf("%w; the server asked to retry after %s, past the %s export timeout", last, retryAfter.Round(time.Millisecond), e.cfg.Timeout))
			}
			return e.giveUp(gaveUp(last, attempts, fmt.Sprintf("the %s export timeout", e.cfg.Timeout)))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: export cancelled: %w", e.name, ctx.Err())
		case <-t.C:
		}
	}
	return e.giveUp(gaveUp(last, attempts, ""))
}

// giveUp takes the endpoint as down and returns err, or, when another
// export gave up on it first (they run at once), ErrDown: the run says
// why once.
func (e *Exporter) giveUp(err error) error {
	if e.down.Swap(true) {
		return fmt.Errorf("%s: %w", e.name, ErrDown)
	}
	return err
}

func gaveUp(err error, attempts int, limit string) error {
	switch {
	case attempts > 1 && limit != "":
		return fmt.Errorf("%w (gave up after %d attempts, within %s)", err, attempts, limit)
	case attempts > 1:
		return fmt.Errorf("%w (gave up after %d attempts)", err, attempts)
	}
	return err
}

// failure is one failed attempt; retry says whether another may succeed,
// down whether the endpoint is taken as down for the rest of the run.
type failure struct {
	name, msg string
	retry     bool
	down      bool // when not retried: the endpoint is down for the run
}

func (f *failure) Error() string { return f.name + ": " + f.msg }

// request is one request of an export: the HTTP body (compressed when
// asked), or the gRPC request.
type request struct {
	payload []byte
	req     ptraceotlp.ExportRequest
}

// encode turns the document into what the protocol sends, split into
// requests of at most MaxRequestBytes (in protobuf) when larger: a
// Collector refuses a gRPC message over 4 MiB and an HTTP body over 20 MiB
// by default, and a long session's trace can be larger. An http/json
// export of a small document with no resource attributes to merge sends
// the document's own bytes.
func (e *Exporter) encode(body []byte) ([]request, error) {
	if e.cfg.Protocol == ProtocolHTTPJSON && len(e.cfg.Resource) == 0 && len(body) <= e.cfg.MaxRequestBytes {
		p, err := e.compress(body)
		return []request{{payload: p}}, err
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		return nil, &failure{name: e.name, msg: "the trace is not an OTLP/JSON document"}
	}
	e.mergeResource(req)
	var out []request
	for _, td := range splitTraces(req.Traces(), e.cfg.MaxRequestBytes) {
		r := request{req: ptraceotlp.NewExportRequestFromTraces(td)}
		var err error
		switch e.cfg.Protocol {
		case ProtocolGRPC:
			out = append(out, r)
			continue
		case ProtocolHTTPJSON:
			r.payload, err = r.req.MarshalJSON()
		default:
			r.payload, err = r.req.MarshalProto()
		}
		if err != nil {
			return nil, &failure{name: e.name, msg: "cannot encode the trace"}
		}
		if r.payload, err = e.compress(r.payload); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (e *Exporter) compress(payload []byte) ([]byte, error) {
	if e.cfg.Compression != CompressionGzip {
		return payload, nil
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(payload)
	if err := zw.Close(); err != nil {
		return nil, &failure{name: e.name, msg: "cannot compress the trace"}
	}
	return b.Bytes(), nil
}

// splitTraces cuts td into parts of at most limit bytes in protobuf, by
// spans, each part keeping its spans' resource and scope (OTLP lets one
// trace's spans come in any number of requests). A span larger than the
// limit goes alone. td itself is returned when it fits.
func splitTraces(td ptrace.Traces, limit int) []ptrace.Traces {
	var m ptrace.ProtoMarshaler
	if m.TracesSize(td) <= limit {
		return []ptrace.Traces{td}
	}
	var parts []ptrace.Traces
	var cur ptrace.Traces
	var curRS ptrace.ResourceSpans
	var curSS ptrace.ScopeSpans
	size := 0
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		haveRS := false
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			haveSS := false
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				span := spans.At(k)
				n := m.SpanSize(span) + 16 // the span's own framing
				if len(parts) == 0 || size+n > limit {
					cur = ptrace.NewTraces()
					parts = append(parts, cur)
					size, haveRS, haveSS = 0, false, false
				}
				if !haveRS {
					curRS = cur.ResourceSpans().AppendEmpty()
					rs.Resource().CopyTo(curRS.Resource())
					curRS.SetSchemaUrl(rs.SchemaUrl())
					size += m.ResourceSpansSize(curRS)
					haveRS = true
				}
				if !haveSS {
					curSS = curRS.ScopeSpans().AppendEmpty()
					ss.Scope().CopyTo(curSS.Scope())
					curSS.SetSchemaUrl(ss.SchemaUrl())
					size += m.ScopeSpansSize(curSS)
					haveSS = true
				}
				span.CopyTo(curSS.Spans().AppendEmpty())
				size += n
			}
		}
	}
	return parts
}

// mergeResource puts the configured attributes into every resource.
func (e *Exporter) mergeResource(req ptraceotlp.ExportRequest) {
	if len(e.cfg.Resource) == 0 {
		return
	}
	rss := req.Traces().ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		attrs := rss.At(i).Resource().Attributes()
		for _, a := range e.cfg.Resource {
			attrs.PutStr(a.Key, a.Value)
		}
	}
}

// attempt makes one request within tctx (the export's timeout; ctx is the
// caller's). On a retryable answer it also returns the wait the server
// asked for (0 when none).
func (e *Exporter) attempt(ctx, tctx context.Context, payload []byte, req ptraceotlp.ExportRequest) (time.Duration, error) {
	if e.cfg.Protocol == ProtocolGRPC {
		return e.attemptGRPC(ctx, tctx, req)
	}
	hreq, err := http.NewRequestWithContext(tctx, http.MethodPost, e.cfg.URL, bytes.NewReader(payload))
	if err != nil {
		return 0, &failure{name: e.name, msg: "cannot build the request"}
	}
	for k, v := range e.cfg.Headers {
		hreq.Header.Set(k, v)
	}
	if e.cfg.Protocol == ProtocolHTTPJSON {
		hreq.Header.Set("Content-Type", "application/json")
	} else {
		hreq.Header.Set("Content-Type", "application/x-protobuf")
	}
	if e.cfg.Compression == CompressionGzip {
		hreq.Header.Set("Content-Encoding", "gzip")
	} else {
		hreq.Header.Del("Content-Encoding")
	}
	resp, err := e.client.Do(hreq)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return 0, fmt.Errorf("%s: export cancelled: %w", e.name, ctx.Err())
		case tctx.Err() != nil:
			return 0, &failure{name: e.name, msg: fmt.Sprintf("no response within the %s export timeout", e.cfg.Timeout), retry: true}
		}
		return 0, e.transportFailure(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil && resp.StatusCode/100 == 2 {
		if tctx.Err() != nil && ctx.Err() == nil {
			return 0, &failure{name: e.name, msg: fmt.Sprintf("no response within the %s export timeout", e.cfg.Timeout), retry: true}
		}
		return 0, &failure{name: e.name, msg: "the response was cut off", retry: true}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse)) // let the connection be reused
	status := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case resp.StatusCode/100 == 2:
		if n := e.rejectedSpans(resp.Header.Get("Content-Type"), data); n > 0 {
			return 0, &failure{name: e.name, msg: fmt.Sprintf("%s, but the endpoint rejected %d span(s) (partial success)", status, n)}
		}
		return 0, nil
	case resp.StatusCode/100 == 3:
		return 0, &failure{name: e.name, msg: status + e.redirectedTo(resp) + "; redirects are not followed, so nothing was sent there (set the endpoint to that address if it is right)", down: true}
	case retryable(resp.StatusCode):
		return retryAfter(resp.Header.Get("Retry-After"), time.Now()), &failure{name: e.name, msg: status, retry: true}
	default:
		return 0, &failure{name: e.name, msg: status}
	}
}

// redirectedTo says where a redirect pointed: scheme, host and port only
// (a path or query can carry a token), and whether that is another origin.
// A Location whose host is not plainly a host name or address is not
// shown: the server chose it.
func (e *Exporter) redirectedTo(resp *http.Response) string {
	loc, err := resp.Location()
	if err != nil || loc.Host == "" || strings.Trim(loc.Host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") != "" ||
		(loc.Scheme != "http" && loc.Scheme != "https") {
		return " with no Location this run can show"
	}
	to := hostPort(loc.Scheme, loc.Host)
	if to == e.name {
		return " to another path of the same origin"
	}
	return " to " + to + " (another origin)"
}

// transportFailure reads a failed connection: refused (nothing listens)
// and an unknown host fail fast; anything else may pass and is retried.
func (e *Exporter) transportFailure(err error) *failure {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL, query included
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &failure{name: e.name, msg: "connection refused (not retried: is a Collector listening there?)", down: true}
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return &failure{name: e.name, msg: "no such host (not retried)", down: true}
	case errors.As(err, &certErr):
		return &failure{name: e.name, msg: "its TLS certificate is not trusted here (not retried)", down: true}
	case errors.Is(err, syscall.ECONNRESET):
		return &failure{name: e.name, msg: "cannot reach the endpoint: connection reset", retry: true}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		err = opErr.Err // its text names the addresses
	}
	return &failure{name: e.name, msg: "cannot reach the endpoint: " + err.Error(), retry: true}
}

// attemptGRPC makes one Export call.
func (e *Exporter) attemptGRPC(ctx, tctx context.Context, req ptraceotlp.ExportRequest) (time.Duration, error) {
	cctx := tctx
	if len(e.md) > 0 {
		cctx = metadata.NewOutgoingContext(tctx, e.md)
	}
	var opts []grpc.CallOption
	if e.cfg.Compression == CompressionGzip {
		opts = append(opts, grpc.UseCompressor(grpcgzip.Name))
	}
	resp, err := e.grpc.Export(cctx, req, opts...)
	if err == nil {
		if n := resp.PartialSuccess().RejectedSpans(); n > 0 {
			return 0, &failure{name: e.name, msg: fmt.Sprintf("gRPC OK, but the endpoint rejected %d span(s) (partial success)", n)}
		}
		return 0, nil
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("%s: export cancelled: %w", e.name, ctx.Err())
	}
	st := status.Convert(err)
	code := st.Code()
	msg := "gRPC " + code.String()
	// gRPC ends a call at its deadline by a timer of its own, which can
	// fire a moment before the context's.
	if dl, _ := tctx.Deadline(); tctx.Err() != nil || (code == codes.DeadlineExceeded && time.Until(dl) < 50*time.Millisecond) {
		return 0, &failure{name: e.name, msg: fmt.Sprintf("no response within the %s export timeout", e.cfg.Timeout), retry: true}
	}
	var delay time.Duration
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			delay = ri.GetRetryDelay().AsDuration()
		}
	}
	switch code {
	case codes.Unavailable:
		if p := e.dialErr.Load(); p != nil {
			var dnsErr *net.DNSError
			switch {
			case errors.Is(*p, syscall.ECONNREFUSED):
				return 0, &failure{name: e.name, msg: "connection refused (not retried: is a Collector listening there?)", down: true}
			case errors.As(*p, &dnsErr) && dnsErr.IsNotFound:
				return 0, &failure{name: e.name, msg: "no such host (not retried)", down: true}
			}
		}
		return delay, &failure{name: e.name, msg: msg, retry: true}
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.DataLoss:
		return delay, &failure{name: e.name, msg: msg, retry: true}
	case codes.ResourceExhausted: // retryable only when the server says when
		return delay, &failure{name: e.name, msg: msg, retry: delay > 0}
	}
	return 0, &failure{name: e.name, msg: msg}
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

// rejectedSpans reads partialSuccess.rejectedSpans from a response: an
// ExportTraceServiceResponse in protobuf or JSON, told by the response's
// Content-Type (the request's encoding when it names neither); 0 when
// absent or unreadable.
func (e *Exporter) rejectedSpans(contentType string, body []byte) int64 {
	if len(body) == 0 {
		return 0
	}
	proto := e.cfg.Protocol == ProtocolHTTPProtobuf
	switch ct := strings.ToLower(contentType); {
	case strings.Contains(ct, "json"):
		proto = false
	case strings.Contains(ct, "protobuf"):
		proto = true
	}
	if proto {
		r := ptraceotlp.NewExportResponse()
		if r.UnmarshalProto(body) != nil {
			return 0
		}
		return r.PartialSuccess().RejectedSpans()
	}
	return rejectedSpansJSON(body)
}

// rejectedSpansJSON reads partialSuccess.rejectedSpans from an OTLP/JSON
// response (a string or a number); 0 when absent or unreadable.
func rejectedSpansJSON(body []byte) int64 {
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
