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
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/schema"
	"github.com/contextreceipts/convert/internal/vocab"
)

// ScopePrefix names the instrumentation scope of each converter's spans.
const ScopePrefix = "github.com/contextreceipts/convert/converters/"

var (
	vocabOnce sync.Once
	words     map[string]bool
	vocabErr  error
	msgOnce   sync.Once
	msgWords  map[string]bool
)

// Vocabulary is every string the program itself writes: schema keys, enum
// and const values (receipt, report and prepare schemas alike), event
// names, converter and span names, record types, the OTLP writer's field
// names and schema URL, the bucket labels, and every string literal of the
// packages that build outputs (internal/vocab, generated). It is built once
// per process and only read afterwards.
func Vocabulary() (map[string]bool, error) {
	vocabOnce.Do(func() {
		set, err := schema.Load()
		if err != nil {
			vocabErr = err
			return
		}
		words = set.Vocabulary()
		for _, c := range converters.All() {
			words[c.Name], words[c.SpanName] = true, true
			words[ScopePrefix+c.Name] = true
			for _, t := range c.Types {
				words[t] = true
			}
			for _, e := range c.Events {
				words[e] = true
			}
		}
		for _, w := range otlp.Vocabulary() {
			words[w] = true
		}
		for _, w := range vocab.Words() {
			words[w] = true
		}
		for _, l := range receipt.Ladders() {
			for _, b := range l.Labels {
				words[b] = true
			}
		}
		// The segments of dotted names are our words too: a span attribute
		// key made of them says nothing of the input.
		for w := range words {
			if strings.Contains(w, ".") && !strings.ContainsAny(w, "/ ") {
				for _, seg := range strings.Split(w, ".") {
					words[seg] = true
				}
			}
		}
	})
	return words, vocabErr
}

// messageWords are the single words of every vocabulary phrase and format
// string, for messages the program composes.
func messageWords(vocabulary map[string]bool) map[string]bool {
	msgOnce.Do(func() {
		msgWords = map[string]bool{}
		for w := range vocabulary {
			for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == '.' || r == ':' || r == '"' }) {
				msgWords[p] = true
			}
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
