package leak_test

import (
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/leak"
)

// TestLabelsAreAClosedVocabulary holds the label shape to the program's
// real vocabulary (the gate installs it): honest labels are words the
// program knows and are admitted; values of the same syntax it does not
// know (a passphrase, a person's dotted name, a canary) are refused, so a
// reader writes them as digests. Each refused value has a label's syntax
// (the name shape, which shares it and has no vocabulary, admits it), so
// it is the vocabulary that refuses it, not the syntax.
func TestLabelsAreAClosedVocabulary(t *testing.T) {
	for _, v := range []string{"end_turn", "tool_use", "acceptEdits", "bypassPermissions", "SessionStart:startup",
		"context.input.rendered", "session.start", "codex_cli_rs", "workspace-write", "assistant", "cli"} {
		if !leak.Label.Admit(v) {
			t.Errorf("label refuses %q, an honest label (a word of the program: %v)", v, gate.IsWord(v))
		}
	}
	for _, v := range []string{"correct-horse-battery-staple-xxxxxx", "alice.kowalczyk.payroll", "CANARY-horse-battery-staple",
		"end_turn_CANARY", "acme.payroll.q3-review", "bob_smith"} {
		if !leak.Name.Admit(v) {
			t.Errorf("%q has no label syntax: the case tests nothing", v)
		}
		if leak.Label.Admit(v) {
			t.Errorf("label admits %q, a value the program does not know", v)
		}
	}
}
