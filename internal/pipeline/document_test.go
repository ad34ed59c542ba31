package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
)

// TestDocumentErrorsPointIntoIt: a format's one-document file (a Gemini
// CLI session-*.json chat, pretty-printed) is read whole; one that is not
// one whole document fails at the line of the document where it breaks,
// with nothing written and no raw value in the message. JSON Lines under
// a document's name are read line by line, and a document larger than the
// bound is refused.
func TestDocumentErrorsPointIntoIt(t *testing.T) {
	whole := `{
  "sessionId": "3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b",
  "projectHash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "startTime": "2025-09-02T14:04:00.000Z",
  "lastUpdated": "2025-09-02T14:06:00.000Z",
  "messages": [
    {
      "id": "5a6b7c8d-0001-4e9f-8a0b-1c2d3e4f5a01",
      "timestamp": "2025-09-02T14:04:30.000Z",
      "type": "user",
      "content": "CANARY-prompt"
    },
    {
      "id": "5a6b7c8d-0002-4e9f-8a0b-1c2d3e4f5a02",
      "timestamp": "2025-09-02T14:04:40.000Z",
      "type": "gemini",
      "content": "CANARY-answer",
      "model": "gemini-2.5-pro",
      "tokens": {"input": 100, "output": 20, "cached": 0, "thoughts": 0, "tool": 0, "total": 120}
    }
  ]
}
`
	lines := strings.Split(whole, "\n")
	for _, tc := range []struct {
		name, doc string
		max       int
		line      int // 0: converted
		msg       string
	}{
		{"whole, pretty-printed", whole, 0, 0, ""},
		{"cut short", strings.Join(lines[:15], "\n") + "\n", 0, 15, "not one whole JSON document: it breaks at this line"},
		{"cut short mid-line", strings.Join(lines[:15], "\n") + "\n" + lines[15][:12], 0, 16, "not one whole JSON document: it breaks at this line"},
		{"a stray character", strings.Join(lines[:9], "\n") + "\n      ] CANARY\n" + strings.Join(lines[9:], "\n"), 0, 10, "not one whole JSON document: it breaks at this line"},
		{"two documents", whole + whole, 0, 23, "not one whole JSON document: it breaks at this line"},
		{"larger than the bound", whole, 100, 0, "a JSON document of more than 64 MiB, not read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.max > 0 {
				old := maxDocument
				maxDocument = tc.max
				defer func() { maxDocument = old }()
			}
			p := filepath.Join(t.TempDir(), "chats", "session-2025-09-02T14-04-3e4f5a6b.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, conv := range []string{"auto", "gemini_cli"} {
				res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: conv})
				if tc.msg == "" {
					if res.Err != nil || res.Converter != "gemini_cli" || len(res.Receipt) == 0 {
						t.Fatalf("%s: converter %q, err %v", conv, res.Converter, res.Err)
					}
					if strings.Contains(string(res.Receipt)+string(res.Trace), "CANARY") {
						t.Fatalf("%s: canary in an output", conv)
					}
					continue
				}
				if res.Err == nil || res.Receipt != nil {
					t.Fatalf("%s: converted", conv)
				}
				ie, ok := res.Err.(*InputError)
				if !ok || ie.Line != tc.line || ie.Path != p || !strings.Contains(ie.Msg, tc.msg) || strings.Contains(ie.Error(), "CANARY") {
					t.Errorf("%s: %v (line %d, want %d)", conv, res.Err, ie.Line, tc.line)
				}
			}
		})
	}
	// JSON Lines under a document's name are read line by line.
	p := filepath.Join(t.TempDir(), "session-2026-03-20T10-00-1b2c3d4e.json")
	jl := `{"sessionId":"1b2c3d4e-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-03-20T10:00:00.000Z","lastUpdated":"2026-03-20T10:00:00.000Z","kind":"main"}` + "\n" +
		`{"id":"m1","timestamp":"2026-03-20T10:00:01.000Z","type":"user","content":"CANARY hi"}` + "\n"
	if err := os.WriteFile(p, []byte(jl), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{}); res.Err != nil || res.Stats.Lines != 2 {
		t.Errorf("JSON Lines under a document's name: %v, %d lines", res.Err, res.Stats.Lines)
	}
}

// TestArrayDocumentIsOneRecordAnElement: a one-document file holding a
// JSON array (Codebuff's chat-messages.json) is read one element a record,
// element n on line n, so a non-object element is a skipped line of its
// own and the messages around it are read.
func TestArrayDocumentIsOneRecordAnElement(t *testing.T) {
	doc := `[
  {"id": "user-1", "variant": "user", "content": "CANARY-prompt", "timestamp": "2026-11-20T10:00:00.000Z"},
  "CANARY-junk",
  {"id": "ai-1", "variant": "ai", "content": "CANARY-answer", "timestamp": "2026-11-20T10:00:05.000Z",
   "metadata": {"model": "claude-sonnet-4-20250514", "usage": {"inputTokens": 10, "outputTokens": 2}}}
]
`
	p := filepath.Join(t.TempDir(), "chat-messages.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
	if res.Err != nil || res.Converter != "codebuff" {
		t.Fatalf("converter %q, err %v", res.Converter, res.Err)
	}
	if res.Stats.Lines != 3 || res.Stats.Records != 2 || res.Stats.SkipReasons["not_an_object"] != 1 {
		t.Errorf("%d lines, %d records, skipped %v; want 3, 2, one not an object", res.Stats.Lines, res.Stats.Records, res.Stats.SkipReasons)
	}
	if len(res.Diags) != 1 || !strings.Contains(res.Diags[0], ":2:") {
		t.Errorf("warnings %q, want one at line 2", res.Diags)
	}
	if strings.Contains(string(res.Receipt)+string(res.Trace)+strings.Join(res.Diags, ""), "CANARY") {
		t.Fatal("canary in an output")
	}
}
