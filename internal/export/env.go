package export

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The standard OTLP exporter variables this package reads. Each
// OTEL_EXPORTER_OTLP_TRACES_* variable wins over its general one.
const (
	EnvEndpoint           = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint     = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvHeaders            = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders      = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvTimeout            = "OTEL_EXPORTER_OTLP_TIMEOUT"
	EnvTracesTimeout      = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
	EnvProtocol           = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol     = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvCompression        = "OTEL_EXPORTER_OTLP_COMPRESSION"
	EnvTracesCompression  = "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"
	EnvInsecure           = "OTEL_EXPORTER_OTLP_INSECURE"
	EnvTracesInsecure     = "OTEL_EXPORTER_OTLP_TRACES_INSECURE"
	EnvTracesExporter     = "OTEL_TRACES_EXPORTER" // "none" ignores the endpoint variables
	EnvResourceAttributes = "OTEL_RESOURCE_ATTRIBUTES"
	EnvServiceName        = "OTEL_SERVICE_NAME"
)

// The protocols and compressions of the OTLP exporter specification.
const (
	ProtocolHTTPProtobuf = "http/protobuf" // the default
	ProtocolHTTPJSON     = "http/json"
	ProtocolGRPC         = "grpc"
	CompressionGzip      = "gzip"
	CompressionNone      = "none"
)

// DefaultProtocol is the specification's default.
const DefaultProtocol = ProtocolHTTPProtobuf

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

// Attr is one resource attribute.
type Attr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Env is what the OTLP environment variables ask for. Bad values do not
// stop anything: each is left out (its default applies) and Warnings says
// so, naming the variable, never its value.
type Env struct {
	TracesEndpoint string            // OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as is
	Endpoint       string            // OTEL_EXPORTER_OTLP_ENDPOINT, a base URL
	Headers        map[string]string // the general headers, then the traces ones over them
	Timeout        time.Duration     // 0 when unset (or bad)
	Protocol       string            // "" when unset (or bad)
	Compression    string            // "" when unset (or bad)
	Insecure       bool              // for a gRPC endpoint without a scheme
	Resource       []Attr            // OTEL_RESOURCE_ATTRIBUTES, then service.name from OTEL_SERVICE_NAME
	Warnings       []string
}

// URL is the endpoint the variables name for protocol: for http/* the
// traces endpoint as is, or the base endpoint with /v1/traces appended;
// for grpc either one as is (gRPC has no path). "" when none is set.
func (e Env) URL(protocol string) string {
	switch {
	case e.TracesEndpoint != "":
		return e.TracesEndpoint
	case e.Endpoint != "" && protocol == ProtocolGRPC:
		return e.Endpoint
	case e.Endpoint != "":
		return TracesURL(e.Endpoint)
	}
	return ""
}

// FromEnv reads the OTLP exporter variables through getenv (os.Getenv),
// as the OpenTelemetry SDKs do: the traces-specific variable wins over the
// general one, and a malformed value gives a warning and its default
// instead of an error. OTEL_TRACES_EXPORTER=none ignores both endpoints (a
// shell set up for other tools need not export). Timeouts are in
// milliseconds.
func FromEnv(getenv func(string) string) Env {
	var env Env
	warn := func(name, why string) { env.Warnings = append(env.Warnings, name+": "+why) }
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if get(EnvTracesExporter) != "none" {
		env.TracesEndpoint, env.Endpoint = get(EnvTracesEndpoint), get(EnvEndpoint)
	}
	env.Headers = map[string]string{}
	for _, name := range []string{EnvHeaders, EnvTracesHeaders} {
		h, err := ParseHeaders(getenv(name))
		if err != nil {
			warn(name, err.Error()+"; the valid entries are used")
		}
		for k, v := range h {
			env.Headers[k] = v
		}
	}
	for _, name := range []string{EnvTimeout, EnvTracesTimeout} {
		v := get(name)
		if v == "" {
			continue
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || ms > int64(time.Hour/time.Millisecond) {
			warn(name, "not a number of milliseconds from 1 to 3600000; ignored")
			continue
		}
		env.Timeout = time.Duration(ms) * time.Millisecond
	}
	for _, name := range []string{EnvProtocol, EnvTracesProtocol} {
		switch v := get(name); v {
		case "":
		case ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC:
			env.Protocol = v
		default:
			warn(name, "not http/protobuf, http/json or grpc; ignored")
		}
	}
	for _, name := range []string{EnvCompression, EnvTracesCompression} {
		switch v := strings.ToLower(get(name)); v {
		case "":
		case CompressionGzip, CompressionNone:
			env.Compression = v
		default:
			warn(name, "not gzip or none; ignored")
		}
	}
	for _, name := range []string{EnvInsecure, EnvTracesInsecure} {
		if v := get(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				warn(name, "not true or false; ignored")
				continue
			}
			env.Insecure = b
		}
	}
	attrs, err := ParseResource(getenv(EnvResourceAttributes))
	if err != nil {
		warn(EnvResourceAttributes, err.Error()+"; the whole variable is ignored, as the specification says")
	}
	env.Resource = attrs
	if v := get(EnvServiceName); v != "" {
		env.Resource = append(env.Resource, Attr{"service.name", v})
	}
	return env
}

// ParseResource reads OTEL_RESOURCE_ATTRIBUTES: comma-separated key=value
// pairs (the W3C Baggage shape), values percent-decoded, spaces around
// keys and values ignored; a later key replaces an earlier one. Any error
// discards the whole value. Errors name the entry by position, never its
// content.
func ParseResource(s string) ([]Attr, error) {
	var out []Attr
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i, entry := range strings.Split(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("entry %d has no '=' (want key=value,key2=value2)", i+1)
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("entry %d has an empty key", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil || !utf8.ValidString(val) || !utf8.ValidString(k) {
			return nil, fmt.Errorf("entry %d: bad percent-encoding", i+1)
		}
		out = slices.DeleteFunc(out, func(a Attr) bool { return a.Key == k })
		out = append(out, Attr{k, val})
	}
	return out, nil
}

// ParseHeaders reads the OTEL_EXPORTER_OTLP_HEADERS format: comma-separated
// key=value pairs, keys and values percent-encoded, spaces around them
// ignored. Keys are returned in canonical HTTP form. On a bad entry it
// returns the valid ones and an error naming the first bad entry by
// position, never its content (a value is often a credential).
func ParseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	var first error
	bad := func(err error) {
		if first == nil {
			first = err
		}
	}
	for i, entry := range strings.Split(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		if !ok {
			bad(fmt.Errorf("entry %d has no '=' (want key=value,key2=value2)", i+1))
			continue
		}
		key, err1 := url.PathUnescape(strings.TrimSpace(k))
		val, err2 := url.PathUnescape(strings.TrimSpace(v))
		if err1 != nil || err2 != nil {
			bad(fmt.Errorf("entry %d: bad percent-encoding", i+1))
			continue
		}
		if err := checkHeader(key, val); err != nil {
			bad(fmt.Errorf("entry %d: %w", i+1, err))
			continue
		}
		h[canonicalKey(key)] = val
	}
	return h, first
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
