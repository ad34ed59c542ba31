package gate

import (
	"strings"
	"testing"
)

// The words of a converter registered at run time, as a plugin's would be
// (converters.Register calls AddWords): the generated table cannot know
// them.
func init() {
	AddWords("test_plugin_words", "plugin_span_name", ScopePrefix+"test_plugin_words", "plugin_rec.kind_x", "plugin_ev.seen_y")
}

// TestAddedWordsAreVocabulary: words AddWords added, and the segments of
// the dotted ones, are the gate's words and message words though the table
// lacks them; no other word is.
func TestAddedWordsAreVocabulary(t *testing.T) {
	is := isWord()
	for _, w := range []string{"test_plugin_words", "plugin_span_name", ScopePrefix + "test_plugin_words", "plugin_rec.kind_x", "plugin_rec", "kind_x", "plugin_ev.seen_y", "plugin_ev", "seen_y"} {
		if IsWord(w) {
			t.Errorf("%q is in the generated table: the test proves nothing", w)
		}
		if !is(w) || !Known(w) {
			t.Errorf("%q, an added word, is not the gate's", w)
		}
		if !strings.Contains(w, ".") && !messageWords()[w] { // message words split at dots
			t.Errorf("%q is not a message word", w)
		}
	}
	if is("plugin_other_word") {
		t.Error("a word nobody added is the gate's")
	}
	for w := range registered() {
		if IsWord(w) {
			t.Errorf("%q is kept as added though the table has it", w)
		}
	}
}
