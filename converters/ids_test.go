package converters_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/models"
)

// TestIDGrammars: every native reader declares its agent's id grammar
// (Format.IDs; an empty one writes every id as its digest). Each rule's
// examples are written in clear; of random ids the rule makes (each
// prefix, length and alphabet), no id written in clear is one a secret or
// personal-data screen matches (but a UUID: a Heroku key has the form of
// the session UUIDs agents write, which the screen calls uuid_key where a
// UUID is not the field's documented form; a UUID rule is that form), and
// at least 85% are written in clear: a grammar far looser than the
// agent's ids shows as ids the screens refuse. Gemini CLI's <ms>-<n>
// call ids meet the card screen (13 digits and the next joined across the
// '-' pass Luhn's check one time in ten): 90% of them are in clear, the
// rest digests. Values shaped like ids that are secrets, personal data or
// words are written by no reader.
func TestIDGrammars(t *testing.T) {
	hostile := []string{
		"mysql:root:hunter2", "mysql-root-hunter2", "call_db:root:hunter2x", "key-0123456789abcdef0123456789abcdef",
		"0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef01234567", "4111111111111111", "5551234567",
		"ses_alicePayrollQ3notes", "toolu_CANARYalicePayroll", "toolu_227workflow", "call_alice.kowalczyk@acme",
		"msg_01A", "tc-0001", "agent-5f2e77", "fix-the-first-CANARY-finding-in-checkout", "tool_7fQ2kLm9XcB4",
		"read_file-1774-2", "mcp_acmeledger_query-1774000008000-1", "sess-utf8",
	}
	rng := rand.New(rand.NewPCG(49, 1))
	const made = 2000
	for _, c := range converters.Natives() {
		t.Run(c.Name, func(t *testing.T) {
			g := c.Native.IDs
			if g == nil {
				t.Fatal("Format.IDs is not declared (leak.IDs{} for an agent none of whose ids is written)")
			}
			know := leak.Knowledge{IDs: g, Models: c.Native.Models}
			for _, r := range g {
				if len(r.Examples) == 0 {
					t.Errorf("rule %v: no examples", r.Prefixes)
				}
				shape := leak.ID
				if r.UUID {
					shape = leak.IDOrUUID
				}
				for _, id := range r.Examples {
					if !r.Match(id) || !shape.ClearFor(id, false, know) {
						t.Errorf("%q: an example of the grammar is not written in clear", id)
					}
				}
				clear := 0
				for range made {
					id := makeID(rng, r)
					if !r.Match(id) {
						t.Fatalf("%q: not an id of its own rule", id)
					}
					if !shape.ClearFor(id, false, know) {
						continue // a digest: an id the screens refuse
					}
					clear++
					if p, s := leak.Personal(id), leak.SecretKind(id); p != "" && !(r.UUID && p == "uuid_key") || s != "" {
						t.Errorf("%q: an admitted id looks like %s%s", id, p, s)
					}
				}
				t.Logf("rule %.30v: %d of %d ids in clear", r.Prefixes, clear, made)
				if clear < made*85/100 {
					t.Errorf("rule %.60v: %d of %d ids of the grammar in clear: the screens refuse more than 15%% of them", r.Prefixes, clear, made)
				}
			}
			for _, v := range hostile {
				for _, shape := range []leak.Shape{leak.ID, leak.IDOrUUID} {
					if shape.ClearFor(v, true, know) {
						t.Errorf("%q (%v) written in clear", v, shape)
					}
				}
			}
		})
	}
}

// makeID makes an id of r's family: a random prefix, length and body.
func makeID(rng *rand.Rand, r leak.IDRule) string {
	var sb strings.Builder
	if len(r.Prefixes) > 0 {
		sb.WriteString(r.Prefixes[rng.IntN(len(r.Prefixes))])
	}
	if r.UUID {
		const hex = "0123456789abcdef"
		b := []byte("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
		for i := range b {
			if b[i] == 'x' {
				b[i] = hex[rng.IntN(16)]
			}
		}
		return sb.String() + string(b)
	}
	n := r.Min + rng.IntN(r.Max-r.Min+1)
	for i := range n {
		a := r.Alphabet
		if i < r.HeadLen {
			a = r.Head
		}
		sb.WriteByte(a[rng.IntN(len(a))])
	}
	if r.TailMax > 0 && rng.IntN(2) == 0 {
		sb.WriteByte('-')
		for range 1 + rng.IntN(r.TailMax) {
			sb.WriteByte(r.Tail[rng.IntN(len(r.Tail))])
		}
	}
	return sb.String()
}

// TestAgentModels: the model names a reader declares as its agent's own
// (Format.Models) are names the model shape admits and the catalog does
// not know (a catalog's name belongs to the catalog, kept up to date by
// its own update), each declared once.
func TestAgentModels(t *testing.T) {
	for _, c := range converters.Natives() {
		seen := map[string]bool{}
		for _, m := range c.Native.Models {
			switch {
			case seen[m]:
				t.Errorf("%s: %q declared twice", c.Name, m)
			case !leak.Model.Admit(m):
				t.Errorf("%s: %q is no model name the shape admits", c.Name, m)
			case models.Known(m):
				t.Errorf("%s: %q is the catalog's", c.Name, m)
			case !leak.Model.ClearFor(m, false, leak.Knowledge{Models: c.Native.Models}):
				t.Errorf("%s: %q is not written in clear", c.Name, m)
			}
			seen[m] = true
		}
		if slices.Contains(c.Native.Models, "") {
			t.Errorf("%s: an empty model name", c.Name)
		}
	}
}
