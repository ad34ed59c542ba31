package prepare

// The cases of issue #38, each written to fail before its fix: expansion
// only adds (round 0's code keeps its bytes), budget-bound means the
// budget, a policy without expansions still assesses, a policy id names
// its thresholds, round 0's exclusions survive an expansion, admission
// counts use seed 001's family names, the assessment carries its signals,
// empty families are not searched again, a failing sink never blocks the
// injection, and an honest id is not a secret.

import (
	_ "encoding/json"
	_ "errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/internal/gate"
)

// codeGateStore: one strong memory entry, weak two-term entries that only
// an expansion admits, a profile, and src/main.go matching the query.
func codeGateStore(t *testing.T, weak, weakBytes int) *Store {
	entries := []string{body(300, "alpha", "bravo", "charlie", "delta", "echo", "foxtrot")}
	for i := range weak {
		entries = append(entries, body(weakBytes, "alpha", "bravo", fmt.Sprint("w2x", i)))
	}
	var code strings.Builder
	code.WriteString("// CANARY alpha bravo charlie delta echo foxtrot\n")
	for i := 0; code.Len() < 700; i++ {
		fmt.Fprintf(&code, "func step%d() { run(%d) } // CANARY\n", i, i)
	}
	return openWith(t, mem(scopeA, "m", 1, entries...), art(FamilyProfile, scopeA, "p", 1, body(80, "team")),
		codeRec(scopeA, "repo-a1", "src/main.go", 1, code.String()))
}

// selectedFull lists a receipt's items with their rendered size and
// truncation: a round-0 item must survive expansion exactly.
func selectedFull(r *Receipt) []string {
	var out []string
	for i, k := range selectedKeys(r) {
		out = append(out, fmt.Sprint(k, " bytes=", r.Selected[i].RenderedBytes, " truncated=", r.Selected[i].Truncated))
	}
	return out
}

// TestExpansionOnlyAdds: every item round 0 selects without the gate is
// selected, byte for byte, with it; memory an expansion admits may only use
// what round 0 left, and never takes a round-0 code item's bytes.
func TestExpansionOnlyAdds(t *testing.T) {
	always := DefaultGatePolicy()
	always.ID, always.MinCandidates = "test.always-expand.v1", 99
	def := DefaultGatePolicy()
	tests := []struct {
		name     string
		sections string // "" is the default family selection
		policy   GatePolicy
		maxBytes int
	}{
		{"explicit sections, default policy", "memory,code", def, 1600},
		{"default sections, default policy", "", def, 1700},
		{"explicit sections, always-expand policy", "memory,profile,code", always, 1700},
		{"default sections, always-expand policy", "", always, 1800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := codeGateStore(t, 4, 600)
			var secs []Section
			if tt.sections != "" {
				secs, _ = ParseSections(tt.sections)
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, MaxBytes: tt.maxBytes, IncludeReceipt: true, Sections: secs}
			off := doPrepare(t, st, Options{}, req).Context.Receipt
			g := tt.policy
			on := doPrepare(t, st, Options{Gate: &g}, req)
			render(t, st, on, req)
			if len(on.Effort.ExpansionActions) == 0 {
				t.Fatalf("fixture: the gate must commit an expansion: %+v", on.Effort)
			}
			if !slices.ContainsFunc(selectedKeys(off), func(k string) bool { return strings.Contains(k, "src/main.go") }) {
				t.Fatalf("fixture: src/main.go must be selected without the gate: %v", selectedKeys(off))
			}
			got := selectedFull(on.Context.Receipt)
			for _, k := range selectedFull(off) {
				if !slices.Contains(got, k) {
					t.Fatalf("round-0 item displaced or changed by expansion: %s\n off %v\n on  %v", k, selectedFull(off), got)
				}
			}
			if n := omitted(on.Context.Receipt, FamilyCode, OmitNoFittingTruncation); n != 0 {
				t.Fatalf("code dropped as no_fitting_truncation (%d) after expansion", n)
			}
			if len(on.Context.Receipt.Selected) <= len(off.Selected) {
				t.Fatalf("fixture: the expansion must add an item: off %d on %d", len(off.Selected), len(on.Context.Receipt.Selected))
			}
			if on.Context.ContentBytes > req.MaxBytes {
				t.Fatal("over budget")
			}
			// Injection order stays historical items, then code.
			if err := checkReceipt(on.Context.Receipt, fitFor(t, st, on, req)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fitFor re-checks a receipt's identities against its own content: every
// selected item's fragment appears in the content in receipt order.
func fitFor(t *testing.T, _ *Store, res Result, _ Request) build {
	t.Helper()
	var b build
	for _, s := range res.Context.Receipt.Selected {
		if s.CodeEvidence != nil {
			b.codeOrigins = append(b.codeOrigins, *s.CodeEvidence)
			continue
		}
		b.origins = append(b.origins, selectedKey{*s.ArtifactAddress, s.EntryID, s.EntryVersionID})
	}
	c := *res.Context.Content
	pos := 0
	for _, s := range res.Context.Receipt.Selected {
		var h string
		if s.CodeEvidence != nil {
			h = header(Candidate{Code: s.CodeEvidence})
		} else {
			h = header(Candidate{Addr: *s.ArtifactAddress, EntryID: s.EntryID})
		}
		i := strings.Index(c[pos:], h)
		if i < 0 {
			t.Fatalf("item %q out of injection order", h)
		}
		pos += i + len(h)
	}
	return b
}

