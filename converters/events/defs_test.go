package events_test

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/internal/leak"
)

// TestModelDefAdmitsWhatTheShapeAdmits: every model name the model shape
// lets a reader copy is valid where the schema expects a model, so a
// session is never refused (exit 4) for a model name the screen admitted:
// providers' own forms, and random strings over the shape's alphabet.
func TestModelDefAdmitsWhatTheShapeAdmits(t *testing.T) {
	re := regexp.MustCompile(events.ModelPattern)
	names := []string{
		"claude-opus-4-5-20251101", "gpt-5.5", "o3", "gpt-5.3-codex", "<synthetic>",
		"openrouter/anthropic/claude-sonnet-4", "openai/gpt-oss-120b", "claude-opus-4-5@20251101",
		"models/gemini-2.5-pro", "us.anthropic.claude-sonnet-4-20250514-v1:0", "Qwen/Qwen3-Coder-480B",
		"sha256:" + strings.Repeat("ab", 32), "hmac-sha256:" + strings.Repeat("0f", 32),
	}
	rng := rand.New(rand.NewPCG(7, 9))
	const alphabet = "abcxyzABC0123456789-._:/@<> "
	for range 20000 {
		b := make([]byte, 1+rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		names = append(names, string(b))
	}
	admitted := 0
	for _, v := range names {
		if !leak.Model.Admit(v) && !strings.HasPrefix(v, "sha256:") && !strings.HasPrefix(v, "hmac-sha256:") {
			continue
		}
		admitted++
		if !re.MatchString(v) {
			t.Errorf("the model shape admits %q, the schema's model definition refuses it", v)
		}
	}
	if admitted < 100 {
		t.Fatalf("only %d names admitted: the shape or the corpus changed", admitted)
	}
}

// TestDefsFollowKinds: the definitions that hold pass-through values take
// their patterns from the value kinds (leak.Shape.Pattern), so the schema
// and the shape check are one declaration; a revealed name with a plugin's
// "/" or a version's "@", admitted by the name shape, is a valid name.
func TestDefsFollowKinds(t *testing.T) {
	var doc struct {
		Defs map[string]struct{ Pattern string } `json:"$defs"`
	}
	if err := json.Unmarshal(events.DefsSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	for def, sh := range map[string]leak.Shape{events.DefLabel: leak.Label, events.DefID: leak.IDOrUUID, events.DefModel: leak.Model, events.DefName: leak.Name} {
		got := doc.Defs[def].Pattern
		if got == "" || got != sh.Pattern() {
			t.Errorf("definition %s has pattern %q, its kind %s says %q", def, got, sh, sh.Pattern())
		}
	}
	re := regexp.MustCompile(doc.Defs[events.DefName].Pattern)
	for _, v := range []string{"acme/pdf-tools", "reviewer@2", "mcp__playwright__browser_navigate"} {
		if !leak.Name.Admit(v) || !re.MatchString(v) {
			t.Errorf("name %q: admitted %v, valid %v", v, leak.Name.Admit(v), re.MatchString(v))
		}
	}
}
