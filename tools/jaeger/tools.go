//go:build tools

// Package jaeger pins the Jaeger v2 module for the real-viewer test
// (internal/export/jaeger_integration_test.go). Nothing here is compiled
// into convert: `make jaeger` builds github.com/jaegertracing/jaeger/cmd/jaeger
// from this module's go.mod/go.sum into a temporary directory.
package jaeger

import _ "github.com/jaegertracing/jaeger/cmd/jaeger"
