package gate_test

import (
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/prepare"
)

// TestOneVocabulary: the words the converters and prepare write are all in
// the one vocabulary, the ids and versions they stamp on outputs included.
func TestOneVocabulary(t *testing.T) {
	words := gate.Vocabulary()
	for _, w := range []string{pipeline.Version, gate.ScopePrefix + "session", prepare.ContextSchema, prepare.ReceiptSchema,
		prepare.EffortSchema, prepare.GatePolicyID, prepare.LexicalPolicyID, prepare.LexicalAlgorithm, "context.prepare.status", "convert/prepare"} {
		if !words[w] {
			t.Errorf("%q is not in the vocabulary", w)
		}
	}
}
