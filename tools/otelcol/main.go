// Command otelcol is a minimal OpenTelemetry Collector for tests: the OTLP
// receiver (HTTP, and gRPC when asked) and the contrib file exporter,
// nothing else. It is the real
// Collector code (the same receiver and OTLP/JSON parser as a production
// build), assembled from modules so CI can build it from source.
//
// Usage:
//
//	otelcol -listen 127.0.0.1:4318 -out traces.jsonl   # generated config, loopback only
//	otelcol -listen 127.0.0.1:4318 -grpc-listen 127.0.0.1:4317 -out traces.jsonl
//	otelcol -config collector.yaml                      # any config using otlp and file
//	otelcol -version
//
// With -out, the receiver accepts OTLP/HTTP (JSON or protobuf, plain or
// gzip) on -listen, and OTLP/gRPC on -grpc-listen when given, and the file
// exporter appends every request it receives to -out as one line of
// OTLP/JSON. The Collector's own telemetry is off (no :8888 listener) and its
// logs go to stderr at warn level. SIGINT or SIGTERM shuts it down cleanly.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// version names the collector release the modules in go.mod come from.
const version = "0.161.0"

func main() {
	listen := flag.String("listen", "127.0.0.1:4318", "`ADDR` of the OTLP/HTTP receiver (with -out)")
	grpcListen := flag.String("grpc-listen", "", "`ADDR` of the OTLP/gRPC receiver (with -out; none when empty)")
	out := flag.String("out", "", "`FILE` the file exporter writes, one OTLP/JSON request per line")
	config := flag.String("config", "", "collector config `FILE` (instead of -listen and -out)")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("otelcol (convert test collector)", version)
		return
	}
	var uri string
	switch {
	case *config != "" && *out != "":
		fail("give -config or -out, not both")
	case *config != "":
		uri = "file:" + *config
	case *out != "":
		doc, err := generatedConfig(*listen, *grpcListen, *out)
		if err != nil {
			fail(err.Error())
		}
		uri = "yaml:" + doc
	default:
		fail("need -out FILE (or -config FILE)")
	}
	col, err := otelcol.NewCollector(settings(uri))
	if err != nil {
		fail(err.Error())
	}
	if err := col.Run(context.Background()); err != nil {
		fail(err.Error())
	}
}

// generatedConfig is the whole pipeline as one JSON document (JSON is YAML):
// otlp (HTTP, and gRPC when grpcListen is set) -> file, flushed every
// 100ms, internal telemetry off.
func generatedConfig(listen, grpcListen, out string) (string, error) {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return "", fmt.Errorf("-listen: %v", err)
	}
	protocols := map[string]any{"http": map[string]any{"endpoint": listen}}
	if grpcListen != "" {
		if _, _, err := net.SplitHostPort(grpcListen); err != nil {
			return "", fmt.Errorf("-grpc-listen: %v", err)
		}
		protocols["grpc"] = map[string]any{"endpoint": grpcListen}
	}
	cfg := map[string]any{
		"receivers": map[string]any{"otlp": map[string]any{
			"protocols": protocols,
		}},
		"exporters": map[string]any{"file": map[string]any{
			"path": out, "format": "json", "flush_interval": "100ms",
		}},
		"service": map[string]any{
			"telemetry": map[string]any{
				"metrics": map[string]any{"level": "none"},
				"logs":    map[string]any{"level": "warn"},
			},
			"pipelines": map[string]any{"traces": map[string]any{
				"receivers": []string{"otlp"}, "exporters": []string{"file"},
			}},
		},
	}
	b, err := json.Marshal(cfg)
	return string(b), err
}

func settings(uri string) otelcol.CollectorSettings {
	return otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "convert test collector", Version: version},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				URIs: []string{uri},
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(), fileprovider.NewFactory(), yamlprovider.NewFactory(),
				},
			},
		},
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory()); err != nil {
		return f, err
	}
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "otelcol: "+msg)
	os.Exit(2)
}
