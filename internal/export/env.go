package export

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The standard OTLP exporter variables this package reads.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvTimeout        = "OTEL_EXPORTER_OTLP_TIMEOUT"
	EnvTracesTimeout  = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER" // "none" ignores the endpoint variables
)

// TracesPath is what a base endpoint gets appended for traces.
const TracesPath = "/v1/traces"

// TracesURL turns a base endpoint (http://host:4318, or with a path prefix)
// into the traces URL by appending /v1/traces, as the OTLP specification
// does for OTEL_EXPORTER_OTLP_ENDPOINT. A URL whose path already ends in
// /v1/traces is kept as is.
func TracesURL(base string) string {
	u, err := url.Parse(base)
	if err != nil || strings.HasSuffix(u.Path, TracesPath) {
		return base
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + TracesPath
	u.RawPath = ""
	return u.String()
}

// Env is what the OTLP environment variables ask for.
type Env struct {
	URL     string            // the traces URL; "" when no endpoint variable is set
	Headers map[string]string // OTEL_EXPORTER_OTLP_HEADERS, then the traces-specific ones over them
	Timeout time.Duration     // 0 when no timeout variable is set
}

// FromEnv reads the OTLP exporter variables through getenv (os.Getenv).
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is; otherwise
// OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended. Timeouts are in
// milliseconds. OTEL_TRACES_EXPORTER=none ignores both endpoints (a shell
// set up for other tools need not export). Error messages name the
// variable, never its value.
func FromEnv(getenv func(string) string) (Env, error) {
	var env Env
	traces, base := strings.TrimSpace(getenv(EnvTracesEndpoint)), strings.TrimSpace(getenv(EnvEndpoint))
	switch {
	case strings.TrimSpace(getenv(EnvTracesExporter)) == "none": // no endpoint from the environment
	case traces != "":
		env.URL = traces
	case base != "":
		env.URL = TracesURL(base)
	}
	env.Headers = map[string]string{}
	for _, name := range []string{EnvHeaders, EnvTracesHeaders} {
		h, err := ParseHeaders(getenv(name))
		if err != nil {
			return Env{}, fmt.Errorf("%s: %w", name, err)
		}
		for k, v := range h {
			env.Headers[k] = v
		}
	}
	for _, name := range []string{EnvTimeout, EnvTracesTimeout} {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || ms > int64(24*time.Hour/time.Millisecond) {
			return Env{}, fmt.Errorf("%s: want a positive number of milliseconds", name)
		}
		env.Timeout = time.Duration(ms) * time.Millisecond
	}
	return env, nil
}

// ParseHeaders reads the OTEL_EXPORTER_OTLP_HEADERS format: comma-separated
// key=value pairs, keys and values percent-encoded, spaces around them
// ignored. Keys are returned in canonical HTTP form. Errors name the entry by
// position, never its content (a value is often a credential).
func ParseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return h, nil
	}
	for i, entry := range strings.Split(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("entry %d has no '=' (want key=value,key2=value2)", i+1)
		}
		key, err1 := url.PathUnescape(strings.TrimSpace(k))
		val, err2 := url.PathUnescape(strings.TrimSpace(v))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("entry %d: bad percent-encoding", i+1)
		}
		if err := checkHeader(key, val); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		h[canonicalKey(key)] = val
	}
	return h, nil
}

// SplitHeader reads one K=V header given on the command line (not
// percent-encoded).
func SplitHeader(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok {
		return "", "", errors.New("want KEY=VALUE")
	}
	if err := checkHeader(k, v); err != nil {
		return "", "", err
	}
	return canonicalKey(k), v, nil
}

// checkHeader rejects names that are not HTTP tokens and values with
// control characters, without quoting the value.
func checkHeader(k, v string) error {
	if k == "" {
		return errors.New("empty header name")
	}
	for _, r := range k {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return errors.New("the header name is not a valid HTTP token")
		}
	}
	for _, r := range v {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return fmt.Errorf("the value of header %q has control characters", k)
		}
	}
	return nil
}

func canonicalKey(k string) string { return http.CanonicalHeaderKey(k) }
