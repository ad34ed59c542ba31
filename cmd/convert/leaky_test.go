package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/receipt"
)

// A converter with a privacy bug on purpose: it copies a raw field into the
// root span. Since every shipped converter hashes or shape-checks what it
// copies, this is how the tests prove the pipeline still fails closed.
func init() {
	converters.Register(converters.Converter{
		Name: "test_leaky", Doc: "test only: copies raw text into the trace", SpanName: "invoke_agent",
		TypeField: "type", TimeField: "time", Types: []string{"leaky.record"},
		New: func(converters.Env) converters.State { return &leakyState{} },
	})
}

type leakyState struct{}

func (leakyState) Record(r converters.Record, out *converters.Output) error {
	out.Span.Set("leaky.copy", receipt.S(r.JSON.Get("text").Str().Own()))
	return nil
}

func (leakyState) End(*converters.Output) error { return nil }

// leakyLog writes a log the leaky converter copies raw text from.
func leakyLog(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "leaky.jsonl")
	body := `{"type":"leaky.record","time":"2026-05-01T10:00:00Z","text":"CANARY raw text that must never be copied"}` + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
