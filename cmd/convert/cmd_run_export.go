package main

import (
	"os"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/urfave/cli/v2"
)

// exportFlags are the OTLP export flags of convert run.
func exportFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "otlp-endpoint", Usage: "also send each trace over OTLP to `URL` (an OpenTelemetry Collector, say; http/* append /v1/traces); also OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT used as is"},
		&cli.StringFlag{Name: "otlp-protocol", Usage: "`PROTOCOL` of the export: http/protobuf (default), http/json or grpc; also OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL"},
		&cli.StringFlag{Name: "otlp-compression", Usage: "`COMPRESSION` of the export: gzip or none (default); also OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION"},
		&cli.GenericFlag{Name: "otlp-header", Value: &headerList{}, Usage: "add the header `KEY=VALUE` to each export (repeatable; gRPC metadata for grpc); also OTEL_EXPORTER_OTLP_HEADERS"},
		&cli.DurationFlag{Name: "otlp-timeout", Value: export.DefaultTimeout, Usage: "give up on one trace's export, every attempt and wait included, after `DURATION`; also OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds)"},
		&cli.IntFlag{Name: "otlp-retries", Value: export.DefaultRetries, Usage: "retry a failed export up to `N` times within --otlp-timeout (429, 502, 503, 504, a dropped connection, gRPC Unavailable), with backoff and Retry-After; a refused connection is not retried, and once an export gives up the other traces of the run are not sent"},
		&cli.BoolFlag{Name: "reexport", Usage: "send every trace again, even those the manifest shows the endpoint already accepted"},
	}
}

// headerList collects --otlp-header values. Set never fails, so a bad
// header is reported by exportHook without echoing its value.
type headerList []string

func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }
func (h *headerList) String() string     { return "" }

// exportHook builds the exporter from the flags and the OTLP environment
// variables: nil when no endpoint is set. A bad flag is a usage error; a
// bad variable is a warning naming it (never its value), and its default
// applies, as in the OpenTelemetry SDKs. Each trace is exported as it was
// written, with the environment's resource attributes merged in; a failed
// export is counted apart from the conversion (exit 1) and leaves its
// files in place. The caller closes the exporter.
func exportHook(c *cli.Context, cons *console) (*export.Exporter, error) {
	env := export.FromEnv(os.Getenv)
	s := export.Settings{Endpoint: c.String("otlp-endpoint"), Protocol: strings.TrimSpace(c.String("otlp-protocol")),
		Compression: strings.TrimSpace(c.String("otlp-compression")), KeepServiceName: c.IsSet("service-name")}
	if c.IsSet("otlp-timeout") {
		if d := c.Duration("otlp-timeout"); d <= 0 || d > time.Hour {
			return nil, usageError("--otlp-timeout must be more than 0 and at most 1h")
		}
		s.Timeout = c.Duration("otlp-timeout")
	}
	if hs, ok := c.Generic("otlp-header").(*headerList); ok {
		s.Headers = *hs
	}
	cfg, warnings, err := export.Resolve(s, env)
	if err != nil {
		return nil, usageError("%v", err)
	}
	if cfg.URL != "" || env.Endpoint != "" || env.TracesEndpoint != "" { // no export, no noise about its variables
		for _, w := range warnings {
			cons.Warn("convert: warning: %s", w)
		}
	}
	if cfg.URL == "" {
		if c.IsSet("otlp-header") || c.IsSet("otlp-timeout") || c.IsSet("otlp-retries") || c.IsSet("reexport") || c.IsSet("otlp-protocol") || c.IsSet("otlp-compression") {
			return nil, usageError("--otlp-header, --otlp-protocol, --otlp-compression, --otlp-timeout, --otlp-retries and --reexport need --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		return nil, nil
	}
	cfg.Retries = c.Int("otlp-retries")
	if cfg.Retries < 0 || cfg.Retries > 100 {
		return nil, usageError("--otlp-retries must be between 0 and 100")
	}
	exp, err := export.New(cfg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return exp, nil
}
