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
		&cli.StringFlag{Name: "otlp-endpoint", Usage: "also send each trace over OTLP/HTTP (JSON) to `URL`/v1/traces (an OpenTelemetry Collector, say); also OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT used as is"},
		&cli.GenericFlag{Name: "otlp-header", Value: &headerList{}, Usage: "add the HTTP header `KEY=VALUE` to each export (repeatable); also OTEL_EXPORTER_OTLP_HEADERS"},
		&cli.DurationFlag{Name: "otlp-timeout", Value: export.DefaultTimeout, Usage: "give up on one export attempt after `DURATION`; also OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds)"},
		&cli.IntFlag{Name: "otlp-retries", Value: export.DefaultRetries, Usage: "retry a failed export up to `N` times (connection errors, 429, 502, 503, 504), with backoff and Retry-After; once they run out the other traces of the run are not sent"},
		&cli.BoolFlag{Name: "reexport", Usage: "send every trace again, even those the manifest shows the endpoint already accepted"},
	}
}

// headerList collects --otlp-header values. Set never fails, so a bad
// header is reported by exportHook without echoing its value.
type headerList []string

func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }
func (h *headerList) String() string     { return "" }

// exportHook builds the exporter from the flags and the OTLP environment
// variables: nil when no endpoint is set. Each trace is exported exactly as
// it was written; a failed export is counted apart from the conversion
// (exit 1) and leaves its files in place.
func exportHook(c *cli.Context) (*export.Exporter, error) {
	env, err := export.FromEnv(os.Getenv)
	if err != nil {
		return nil, usageError("%v", err)
	}
	cfg := export.Config{URL: env.URL, Headers: env.Headers, Timeout: c.Duration("otlp-timeout"), Retries: c.Int("otlp-retries")}
	if v := strings.TrimSpace(c.String("otlp-endpoint")); v != "" {
		cfg.URL = export.TracesURL(v)
	}
	if !c.IsSet("otlp-timeout") && env.Timeout > 0 {
		cfg.Timeout = env.Timeout
	}
	if hs, ok := c.Generic("otlp-header").(*headerList); ok {
		for i, h := range *hs {
			k, v, err := export.SplitHeader(h)
			if err != nil {
				return nil, usageError("--otlp-header (occurrence %d): %v", i+1, err)
			}
			cfg.Headers[k] = v
		}
	}
	if cfg.URL == "" {
		if c.IsSet("otlp-header") || c.IsSet("otlp-timeout") || c.IsSet("otlp-retries") || c.IsSet("reexport") {
			return nil, usageError("--otlp-header, --otlp-timeout, --otlp-retries and --reexport need --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		return nil, nil
	}
	if cfg.Timeout <= 0 || cfg.Timeout > time.Hour {
		return nil, usageError("--otlp-timeout must be more than 0 and at most 1h")
	}
	if cfg.Retries < 0 || cfg.Retries > 100 {
		return nil, usageError("--otlp-retries must be between 0 and 100")
	}
	exp, err := export.New(cfg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return exp, nil
}
