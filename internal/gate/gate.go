// Package gate is the fail-closed gate every output of the program passes
// before it is written: schema validation and the leak check, shared by the
// converters' pipeline and the prepare runtime.
//
// It owns one vocabulary (the program's own words), one way of collecting
// output strings (AddJSON, AddFile, AddDocument), one map of derived
// fields, typed findings (Where says which output, by Kind and Index, never
// as text to be parsed back) and the two error types a failed gate returns.
// What is raw input is the caller's: the pipeline feeds a leak.Input from
// the session logs, prepare probes the query and the artifact bodies.
package gate

import (
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/vocab"
)

// ScopePrefix names the instrumentation scope of each converter's spans.
const ScopePrefix = "github.com/contextreceipts/convert/converters/"

var (
	vocabOnce sync.Once
	vocabSet  map[string]bool
	msgOnce   sync.Once
	msgWords  map[string]bool
)

// IsWord reports whether s is in the program's vocabulary: every string
// the program itself writes (internal/gate/vocabgen.Build says which). It
// looks s up in the generated table (vocab_gen.go): no start-up work, where
// building the set was a sixteenth of a one-line run.
func IsWord(s string) bool {
	if len(s) > vocabMaxLen {
		return false
	}
	mask := uint64(len(vocabSlots) - 1)
	for h := VocabHash(s) & mask; ; h = (h + 1) & mask {
		k := vocabSlots[h]
		if k == 0 {
			return false
		}
		if vocabWords[k-1] == s {
			return true
		}
	}
}

// ConverterWords are the words a converter gives the vocabulary: its name,
// span name and scope, record types and event names.
func ConverterWords(c converters.Converter) []string {
	out := []string{c.Name, c.SpanName, ScopePrefix + c.Name}
	out = append(out, c.Types...)
	return append(out, c.Events...)
}

// Segments are the segments of a dotted name (none for a word without a
// dot, or with a slash or space): they are our words too, since a span
// attribute key made of them says nothing of the input.
func Segments(w string) []string {
	if !strings.Contains(w, ".") || strings.ContainsAny(w, "/ ") {
		return nil
	}
	return strings.Split(w, ".")
}

// registered is the words of converters registered at run time
// (converters.Register: a test's or a plugin's) that the generated table
// cannot hold; nil when there are none, as with the shipped converters
// (looking up all of theirs was 2% of a one-line run).
var registered = sync.OnceValue(func() map[string]bool {
	var extra map[string]bool
	add := func(w string) {
		if !IsWord(w) {
			if extra == nil {
				extra = map[string]bool{}
			}
			extra[w] = true
		}
	}
	for _, c := range converters.External() {
		for _, w := range ConverterWords(c) {
			add(w)
			for _, seg := range Segments(w) {
				add(seg)
			}
		}
	}
	return extra
})

// isWord is the vocabulary lookup of a gate: the table's, and the words of
// converters registered at run time when there are any.
func isWord() func(string) bool {
	extra := registered()
	if extra == nil {
		return IsWord
	}
	return func(s string) bool { return IsWord(s) || extra[s] }
}

// Words returns the vocabulary, sorted. Read only.
func Words() []string { return vocabWords[:] }

// Vocabulary returns the vocabulary as a set, built on first call (for
// tests and reference checks; the gate itself asks IsWord). Read only.
func Vocabulary() map[string]bool {
	vocabOnce.Do(func() {
		vocabSet = make(map[string]bool, len(vocabWords))
		for _, w := range vocabWords {
			vocabSet[w] = true
		}
	})
	return vocabSet
}

// messageWords are the single words of every vocabulary phrase and format
// string, for messages the program composes.
func messageWords() map[string]bool {
	msgOnce.Do(func() {
		msgWords = map[string]bool{}
		split := func(w string) {
			for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == '.' || r == ':' || r == '"' }) {
				msgWords[p] = true
			}
		}
		for _, w := range vocabWords {
			split(w)
		}
		for w := range registered() {
			split(w)
		}
		for _, w := range vocab.Formats() {
			for _, p := range strings.Fields(w) {
				if !strings.Contains(p, "%") {
					msgWords[strings.Trim(p, ":,.;()\"")] = true
				}
			}
		}
	})
	return msgWords
}
