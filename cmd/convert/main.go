// Command convert turns agent session logs into privacy-safe context
// receipts (NDJSON) and OpenTelemetry traces (OTLP/JSON).
package main

import "os"

func main() {
	stop := startCPUProfile(os.Getenv("CONVERT_CPUPROFILE"), os.Stderr)
	stopHeap := startHeapProfile(os.Getenv("CONVERT_HEAPPROFILE"), os.Stderr)
	code := run(os.Args, os.Stdout, os.Stderr)
	stopHeap()
	stop()
	os.Exit(code)
}
