package untrusted

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/outname"
	"github.com/contextreceipts/convert/internal/receipt"
)

// readBackCorpus is every kind's examples, a canary, the label
// examples and random strings over the kinds' alphabet.
func readBackCorpus() []string {
	vals := []string{"CANARY-x", "correct-horse-battery-staple-xxxxxx", "alice.kowalczyk.payroll", "mcp__srv__CANARY"}
	for sh := leak.None + 1; sh.String() != "shape?"; sh++ {
		a, r := sh.Examples()
		vals = append(append(vals, a...), r...)
	}
	rng := rand.New(rand.NewPCG(40, 3))
	const alphabet = "abcfxyzABCF0123456789-._:/@+"
	for range 5000 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		vals = append(vals, string(b))
	}
	return vals
}

// TestReadBackAgreesWithTheKinds: the read-back side applies the written
// side's value kinds, not a copy of them. In a field of a declared kind a
// value is printed exactly when the writer writes it in clear there (or
// it is Printable anywhere): by the kind alone when the receipt's agent is
// unknown (a model name only the catalog's), by the agent's knowledge
// when it is known (its id grammar, its own model names); an input's file name exactly when the run writes it as it is;
// a version or time the written side admits is printed wherever it sits.
// A rule added to either side alone makes this fail.
func TestReadBackAgreesWithTheKinds(t *testing.T) {
	vals := append(readBackCorpus(), "toolu_0114R4tT6VPiDksvXghJqa5C", "msg_01alicekowalczykpayrollQ3", "<synthetic>", "alice-kowalczyk-finetune")
	claude := leak.Knowledge{IDs: leak.IDs{leak.AnthropicIDs}, Models: []string{"<synthetic>"}}
	for key, sh := range map[string]leak.Shape{"session.id": leak.IDOrUUID, "gen_ai.conversation.id": leak.IDOrUUID,
		"gen_ai.tool.call.id": leak.IDOrUUID, "gen_ai.request.model": leak.Model, "gen_ai.response.model": leak.Model,
		"mcp.server.name": leak.Name, "gen_ai.tool.name": leak.Name, "subagent.type": leak.Name} {
		if got := FieldKind(key); got != sh {
			t.Errorf("FieldKind(%q) = %s, want %s", key, got, sh)
		}
		admitted := 0
		for _, v := range vals {
			// As a writer that knows no agent writes it in clear, names
			// not revealed: a model name only when the catalog knows it.
			want := sh.Clear(v, false) || Printable(v)
			if sh.Clear(v, false) {
				admitted++
			}
			if got := Field(key, v) == v; got != want {
				t.Errorf("Field(%q, %q) printed %v; the kind %s writes it in clear: %v", key, v, got, sh, sh.Clear(v, false))
			}
			// And for a receipt of an agent the caller knows, as its
			// reader writes it (a UUID in an id field whatever the agent).
			wantFor := sh.ClearFor(v, false, claude) || sh == leak.IDOrUUID && leak.UUID.Admit(v) || Printable(v)
			if got := FieldFor(&claude, key, v) == v; got != wantFor {
				t.Errorf("FieldFor(Claude Code's, %q, %q) printed %v; its reader writes it in clear: %v", key, v, got, wantFor)
			}
		}
		if admitted == 0 {
			t.Errorf("%s admits nothing of the corpus: the case tests nothing", sh)
		}
	}
	for _, v := range append(vals, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl", "input-cd6d9626efca.jsonl", "bad_junk_lines.jsonl",
		"rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", "CANARY.jsonl") {
		written := outname.InputFileName(receipt.Hasher{}, v) == v && !strings.ContainsAny(v, "/\\ ")
		if got := Field("convert.input.path", v) == v; got != (written || Printable(v)) {
			t.Errorf("Field(convert.input.path, %q) printed %v; the run writes it as it is: %v", v, got, written)
		}
	}
	for _, sh := range []leak.Shape{leak.Version, leak.Time} {
		admits, refuses := sh.Examples()
		for _, v := range admits {
			if !Printable(v) {
				t.Errorf("%s %q, which a receipt holds in clear, is withheld", sh, v)
			}
		}
		for _, v := range refuses {
			if leak.Personal(v) != "" && Printable(v) {
				t.Errorf("%s refuses %q (%s), and it is printed", sh, v, leak.Personal(v))
			}
		}
	}
}
