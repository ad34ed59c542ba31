// Command convert turns agent session logs into privacy-safe context
// receipts (NDJSON) and OpenTelemetry traces (OTLP/JSON).
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
