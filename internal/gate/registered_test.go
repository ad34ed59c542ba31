package gate

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
)

// A converter registered at run time, as a plugin's would be: the generated
// table cannot know its words.
func init() {
	converters.Register(converters.Converter{
		Name: "test_plugin_words", Doc: "test only: a converter the table does not know", SpanName: "plugin_span_name",
		TypeField: "type", TimeField: "time", Types: []string{"plugin_rec.kind_x"}, Events: []string{"plugin_ev.seen_y"},
		New: func(converters.Env) converters.State { return nil },
	})
}

// TestRegisteredConvertersAreVocabulary: the words of a converter registered
// at run time (name, span name, scope, types, events and their segments)
// are the gate's words though the table lacks them, and the shipped
// converters need none of that.
func TestRegisteredConvertersAreVocabulary(t *testing.T) {
	is := isWord()
	for _, w := range []string{"test_plugin_words", "plugin_span_name", ScopePrefix + "test_plugin_words", "plugin_rec.kind_x", "plugin_rec", "kind_x", "plugin_ev.seen_y", "plugin_ev", "seen_y"} {
		if IsWord(w) {
			t.Errorf("%q is in the generated table: the test proves nothing", w)
		}
		if !is(w) {
			t.Errorf("%q, a registered converter's word, is not the gate's", w)
		}
		if !strings.Contains(w, ".") && !messageWords()[w] { // message words split at dots
			t.Errorf("%q is not a message word", w)
		}
	}
	if is("plugin_other_word") {
		t.Error("a word no converter has is the gate's")
	}
	for w := range registered() {
		for _, c := range converters.All() {
			if c.Name == "test_plugin_words" {
				continue
			}
			for _, cw := range ConverterWords(c) {
				if cw == w {
					t.Errorf("%q of shipped converter %s is not in the table", w, c.Name)
				}
			}
		}
	}
}

// TestShippedConverterWordsAreInTheTable: only Register's converters need
// the run-time words; every converter the package registers itself has
// its words, segments included, in the generated table.
func TestShippedConverterWordsAreInTheTable(t *testing.T) {
	ext := map[string]bool{}
	for _, c := range converters.External() {
		ext[c.Name] = true
	}
	if !ext["test_plugin_words"] || len(ext) != 1 {
		t.Errorf("External() = %v, want the test's converter only", ext)
	}
	for _, c := range converters.All() {
		if ext[c.Name] {
			continue
		}
		for _, w := range ConverterWords(c) {
			for _, x := range append([]string{w}, Segments(w)...) {
				if !IsWord(x) {
					t.Errorf("%s: %q is not in the generated table", c.Name, x)
				}
			}
		}
	}
}
