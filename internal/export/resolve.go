package export

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Settings are what a command line asks for; each one set wins over its
// environment variable.
type Settings struct {
	// Endpoint is a base URL: http/* get /v1/traces appended (unless it
	// already ends so); grpc uses it as is.
	Endpoint    string
	Protocol    string   // "" when not given
	Compression string   // "" when not given
	Headers     []string // KEY=VALUE each, not percent-encoded
	Timeout     time.Duration
	// KeepServiceName leaves each trace's service.name as written (the
	// user named it on the command line): OTEL_SERVICE_NAME and a
	// service.name in OTEL_RESOURCE_ATTRIBUTES are not merged.
	KeepServiceName bool
}

// Resolve combines the command line and the environment into a Config;
// Config.URL is "" when neither names an endpoint. A bad setting is an
// error, naming the flag; a bad variable is a warning, naming the
// variable (never its value), and its default applies, as in the SDKs:
// an endpoint variable that cannot be used means no export.
func Resolve(s Settings, env Env) (Config, []string, error) {
	warnings := append([]string(nil), env.Warnings...)
	cfg := Config{Protocol: env.Protocol, Compression: env.Compression, Insecure: env.Insecure, Timeout: env.Timeout, Headers: map[string]string{}}
	for k, v := range env.Headers {
		cfg.Headers[k] = v
	}
	if s.Protocol != "" {
		switch s.Protocol {
		case ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC:
			cfg.Protocol = s.Protocol
		default:
			return cfg, warnings, errors.New("--otlp-protocol must be http/protobuf, http/json or grpc")
		}
	}
	if cfg.Protocol == "" {
		cfg.Protocol = DefaultProtocol
	}
	if s.Compression != "" {
		switch c := strings.ToLower(s.Compression); c {
		case CompressionGzip, CompressionNone:
			cfg.Compression = c
		default:
			return cfg, warnings, errors.New("--otlp-compression must be gzip or none")
		}
	}
	if s.Timeout > 0 {
		cfg.Timeout = s.Timeout
	}
	for i, h := range s.Headers {
		k, v, err := SplitHeader(h)
		if err != nil {
			return cfg, warnings, fmt.Errorf("--otlp-header (occurrence %d): %v", i+1, err)
		}
		cfg.Headers[k] = v
	}
	for _, a := range env.Resource {
		if s.KeepServiceName && a.Key == "service.name" {
			continue
		}
		cfg.Resource = append(cfg.Resource, a)
	}
	if v := strings.TrimSpace(s.Endpoint); v != "" {
		if cfg.Protocol != ProtocolGRPC {
			v = TracesURL(v)
		}
		if err := CheckEndpoint(cfg.Protocol, v); err != nil {
			return cfg, warnings, err
		}
		cfg.URL = v
		return cfg, warnings, nil
	}
	if v := env.URL(cfg.Protocol); v != "" {
		name := EnvEndpoint
		if env.TracesEndpoint != "" {
			name = EnvTracesEndpoint
		}
		if err := CheckEndpoint(cfg.Protocol, v); err != nil {
			warnings = append(warnings, name+": "+err.Error()+"; nothing is exported")
			return cfg, warnings, nil
		}
		cfg.URL = v
	}
	return cfg, warnings, nil
}

// CheckEndpoint says whether New would take endpoint for protocol.
func CheckEndpoint(protocol, endpoint string) error {
	if protocol == ProtocolGRPC {
		if strings.Contains(endpoint, "://") {
			u, err := url.Parse(endpoint)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return errGRPCEndpoint
			}
			return nil
		}
		if _, _, err := net.SplitHostPort(endpoint); err != nil || strings.ContainsAny(endpoint, "/?#@") {
			return errGRPCEndpoint
		}
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errHTTPEndpoint
	}
	return nil
}

var (
	errHTTPEndpoint = errors.New("the OTLP endpoint must be an absolute http:// or https:// URL")
	errGRPCEndpoint = errors.New("the OTLP gRPC endpoint must be http://host:port, https://host:port or host:port")
)
