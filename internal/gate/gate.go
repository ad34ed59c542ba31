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
	"sync/atomic"

	"github.com/contextreceipts/convert/internal/leak"
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

// Segments are the segments of a dotted name (none for a word without a
// dot, or with a slash or space): they are our words too, since a span
// attribute key made of them says nothing of the input.
func Segments(w string) []string {
	if !strings.Contains(w, ".") || strings.ContainsAny(w, "/ ") {
		return nil
	}
	return strings.Split(w, ".")
}

// extra holds the words AddWords added, copied on each change; nil when
// there are none, as with the shipped converters, whose words are in the
// generated vocabulary already and must not be looked up again per run.
var (
	extraMu sync.Mutex
	extra   atomic.Pointer[map[string]bool]
)

// AddWords makes words, and the segments of the dotted ones, the gate's
// words too: the words of a converter registered at run time
// (converters.Register: a test's or a plugin's), which the generated table
// cannot hold. The gate imports no converter: what it knows of them is
// what they add.
func AddWords(words ...string) {
	extraMu.Lock()
	defer extraMu.Unlock()
	next := map[string]bool{}
	if p := extra.Load(); p != nil {
		for w := range *p {
			next[w] = true
		}
	}
	for _, w := range words {
		for _, x := range append([]string{w}, Segments(w)...) {
			if !IsWord(x) {
				next[x] = true
			}
		}
	}
	if len(next) > 0 {
		extra.Store(&next)
	}
}

// registered is AddWords' words (nil when none).
func registered() map[string]bool {
	if p := extra.Load(); p != nil {
		return *p
	}
	return nil
}

// The label shape (leak.Label) admits only the program's own words: the
// table's, and those of converters registered at run time.
func init() {
	leak.SetVocabulary(func(s string) bool { return IsWord(s) || registered()[s] })
}

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
// string, for messages the program composes, with those of AddWords.
func messageWords() map[string]bool {
	base := baseMessageWords()
	more := registered()
	if more == nil {
		return base
	}
	msgMu.Lock()
	defer msgMu.Unlock()
	if msgMerged == nil || msgMergedOf != len(more) {
		msgMerged = make(map[string]bool, len(base)+len(more))
		for w := range base {
			msgMerged[w] = true
		}
		for w := range more {
			splitMessage(w, msgMerged)
		}
		msgMergedOf = len(more)
	}
	return msgMerged
}

var (
	msgMu       sync.Mutex
	msgMerged   map[string]bool
	msgMergedOf int // len(registered()) when msgMerged was made: AddWords only adds
)

// splitMessage adds the single words of w to set.
func splitMessage(w string, set map[string]bool) {
	for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == '.' || r == ':' || r == '"' }) {
		set[p] = true
	}
}

// baseMessageWords are messageWords of the generated table and formats.
func baseMessageWords() map[string]bool {
	msgOnce.Do(func() {
		msgWords = map[string]bool{}
		for _, w := range vocabWords {
			splitMessage(w, msgWords)
		}
		for _, w := range vocabFormats {
			for _, p := range strings.Fields(w) {
				if !strings.Contains(p, "%") {
					msgWords[strings.Trim(p, ":,.;()\"")] = true
				}
			}
		}
	})
	return msgWords
}

// Known reports whether s is the program's word: the generated table's, or
// one AddWords added.
func Known(s string) bool { return isWord()(s) }
