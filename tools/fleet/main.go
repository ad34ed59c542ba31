// Command otelcol-fleet is the OpenTelemetry Collector of the fleet setup:
// an OTLP receiver (HTTP and gRPC), the contrib load-balancing exporter
// (routes every span of a trace to one back end, by trace id) and the
// contrib file exporter. The same binary runs as the front Collector and as
// each back Collector; the config file says which (see front.yaml and
// back.yaml beside this file).
//
// Usage:
//
//	otelcol-fleet --config front.yaml
//	otelcol-fleet --config back.yaml
//	otelcol-fleet -version
//
// Environment variables in a config (${env:NAME}) are expanded, so one
// back.yaml serves every back end. SIGINT or SIGTERM shuts it down cleanly,
// flushing what it holds.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
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
	config := flag.String("config", "", "collector config `FILE`")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("otelcol-fleet (convert fleet collector)", version)
		return
	}
	if *config == "" {
		fail("need --config FILE (front.yaml or back.yaml)")
	}
	col, err := otelcol.NewCollector(otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol-fleet", Description: "convert fleet collector", Version: version},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				URIs: []string{"file:" + *config},
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(), fileprovider.NewFactory(), yamlprovider.NewFactory(),
				},
				DefaultScheme: "env",
			},
		},
	})
	if err != nil {
		fail(err.Error())
	}
	if err := col.Run(context.Background()); err != nil {
		fail(err.Error())
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory(), loadbalancingexporter.NewFactory()); err != nil {
		return f, err
	}
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "otelcol-fleet: "+msg)
	os.Exit(2)
}
