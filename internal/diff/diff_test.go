package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func golden(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../golden/session/basic.receipt.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReceipts(t *testing.T) {
	a := golden(t)
	lines := strings.Split(strings.TrimRight(string(a), "\n"), "\n")
	join := func(l []string) []byte { return []byte(strings.Join(l, "\n") + "\n") }
	edit := func(i int, old, new string) []byte {
		l := append([]string(nil), lines...)
		if !strings.Contains(l[i], old) {
			t.Fatalf("line %d lacks %q", i+1, old)
		}
		l[i] = strings.Replace(l[i], old, new, 1)
		return join(l)
	}
	tests := []struct {
		name                       string
		b                          []byte
		added, removed, changed    int
		moved                      int
		selIn, selOut, omIn, omOut int
		text                       []string
	}{
		{name: "same", b: a, text: []string{"equivalent"}},
		{name: "bucket moved", b: edit(2, `"context.input.source.size_bucket":"under_1kib"`, `"context.input.source.size_bucket":"under_16kib"`),
			changed: 1, moved: 1, text: []string{"bucket moved: context.input.source.size_bucket: \"under_1kib\" -> \"under_16kib\"", "A line 3, B line 3"}},
		{name: "event removed", b: join(append(append([]string(nil), lines[:4]...), lines[5:]...)),
			removed: 1, selOut: 1, text: []string{"- context.input.loaded [", "CLAUDE.md", "selected set - context.input.loaded"}},
		{name: "event added", b: join(append(append([]string(nil), lines[:5]...), strings.Replace(lines[4], "CLAUDE.md", "GEMINI.md", 1), lines[5])),
			added: 1, selIn: 1, text: []string{"+ context.input.loaded [", "GEMINI.md", "(B line 6)"}},
		{name: "selected to suppressed", b: edit(0, `"context.input.duplicate.role":"selected"`, `"context.input.duplicate.role":"suppressed"`),
			changed: 1, selOut: 1, omIn: 1, text: []string{"omitted set + context.input.loaded", "selected set - context.input.loaded"}},
		{name: "summary only", b: edit(5, `"convert.input.bytes":2904`, `"convert.input.bytes":2905`),
			text: []string{"~ convert.summary", "convert.input.bytes: 2904 -> 2905", "0 added, 0 removed, 0 changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Receipts("a", a, "b", tt.b)
			if err != nil {
				t.Fatal(err)
			}
			got := []int{len(r.Added), len(r.Removed), len(r.Changed), len(r.BucketsMoved), len(r.Selected.Entered), len(r.Selected.Left), len(r.Omitted.Entered), len(r.Omitted.Left)}
			want := []int{tt.added, tt.removed, tt.changed, tt.moved, tt.selIn, tt.selOut, tt.omIn, tt.omOut}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("counts (added removed changed moved selIn selOut omIn omOut) = %v, want %v", got, want)
					break
				}
			}
			if r.Equivalent != bytes.Equal(a, tt.b) {
				t.Errorf("equivalent = %v", r.Equivalent)
			}
			var out bytes.Buffer
			r.WriteText(&out, "a", "b")
			for _, s := range tt.text {
				if !strings.Contains(out.String(), s) {
					t.Errorf("text lacks %q:\n%s", s, out.String())
				}
			}
			if _, err := json.Marshal(r); err != nil {
				t.Error(err)
			}
		})
	}
}

// Repeated events with one identity are told apart by their order.
func TestRepeatedIdentity(t *testing.T) {
	ev, _, err := Parse("a", golden(t))
	if err != nil {
		t.Fatal(err)
	}
	if ev[0].Identity == ev[3].Identity || !strings.HasSuffix(ev[3].Identity, "#2") {
		t.Errorf("identities %q and %q", ev[0].Identity, ev[3].Identity)
	}
}

func TestParseErrors(t *testing.T) {
	for name, data := range map[string]string{
		"not json":   "CANARY\n",
		"no summary": `{"name":"x","schema":"convert.receipt.v1","attributes":{}}` + "\n",
		"schema":     `{"name":"x","schema":"other","attributes":{}}` + "\n",
	} {
		if _, _, err := Parse("r", []byte(data)); err == nil || strings.Contains(err.Error(), "CANARY") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestValue: a value a receipt holds in clear is printed as itself (the
// counts, buckets, ids and models where a regression shows), a value no
// receipt could hold in its field as a digest.
func TestValue(t *testing.T) {
	for _, tt := range []struct {
		key, v string
		clear  bool
	}{
		{"gen_ai.usage.input_tokens", "15", true},
		{"gen_ai.usage.input_tokens", "28249720", true},
		{"convert.input.bytes", "123456789", true},
		{"gen_ai.usage.input_tokens", "4111111111111111", false}, // a card number
		{"gen_ai.usage.input_tokens", "5551234567", false},       // a phone number
		{"context.input.source.size_bucket", `"under_16kib"`, true},
		{"session.id", `"sess-9c1e-payments-refactor"`, true},
		{"session.id", `"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f"`, true},
		{"gen_ai.response.model", `"claude-opus-4-5-20251101"`, true},
		{"gen_ai.request.model", `"/Users/CANARYUSER/acme"`, false},
		{"gen_ai.response.model", `"claude-CANARYUSER"`, false},
		{"context.input.source.path", `"CANARY-prompt total the invoices"`, false},
		{"convert.input.agent_versions", `["2.1.39","AKIAIOSFODNN7CANARY1"]`, false},
		{"convert.input.agent_versions", `["2.1.39","0.142.4"]`, true},
	} {
		got := Value(tt.key, tt.v)
		if (got == tt.v) != tt.clear {
			t.Errorf("Value(%s, %s) = %s; want in clear: %v", tt.key, tt.v, got, tt.clear)
		}
		if !tt.clear && strings.Contains(got, "CANARY") {
			t.Errorf("Value(%s, %s) = %s", tt.key, tt.v, got)
		}
	}
	for _, id := range []string{"", "#2", "context.input.source.path=CLAUDE.md", "context.input.source.path=CLAUDE.md #3",
		"gen_ai.tool.call.id=toolu_01VopHPceYcznbLHs9g1kvjP, context.input.source.path_hash=sha256:a54ff182c7e8acf56acfd6e4b9c3ff41e2c41a31c9b211b2deb9df75d9a478f9"} {
		if got := screenIdentity(id); got != id {
			t.Errorf("screenIdentity(%q) = %q", id, got)
		}
	}
	if got := screenIdentity("context.input.source.path=CANARY secret, x=/Users/CANARY #2"); strings.Contains(got, "CANARY") || !strings.HasSuffix(got, " #2") {
		t.Errorf("screenIdentity kept %q", got)
	}
}
