package converters_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestDetectRefusesUnknownShapes: logs of formats no converter knows are
// refused with a message naming the known kinds, never claimed by a reader
// that happens to share a type name ("user", "assistant") or a field
// ("role"). A record is a native format's only in that format's shape
// (claudeType, cursorType).
func TestDetectRefusesUnknownShapes(t *testing.T) {
	for _, tc := range []struct{ name, log string }{
		{"chat completions messages", `{"role":"system","content":"CANARY be brief"}
{"role":"user","content":"CANARY hi"}
{"role":"assistant","content":"CANARY hello"}`},
		{"another agent's typed turns", `{"type":"user","content":"CANARY hi","ts":1787220000}
{"type":"assistant","content":"CANARY hello","ts":1787220001}`},
		{"dotted event types", `{"type":"session.begin","id":"s1","at":"2026-08-20T10:00:00Z"}
{"type":"chat.message","role":"user","text":"CANARY hi"}`},
		{"an application log", `{"level":"info","msg":"CANARY started","time":"2026-08-20T10:00:00Z"}
{"level":"warn","msg":"CANARY slow","time":"2026-08-20T10:00:01Z"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log.jsonl")
			if err := os.WriteFile(p, []byte(tc.log+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := pipeline.Convert(pipeline.Input{Path: p, Rel: "log.jsonl"}, pipeline.Options{Converter: "auto"})
			if res.Err == nil {
				t.Fatalf("claimed by %s", res.Converter)
			}
			msg := res.Err.Error()
			if !strings.Contains(msg, "matches no known kind (convert list names every kind)") || strings.Contains(msg, "CANARY") {
				t.Errorf("message %q", msg)
			}
		})
	}
}
