package gate

import (
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

// Kind is the kind of output a string was found in.
type Kind int

// Output kinds.
const (
	Line     Kind = iota + 1 // line Index of File: a receipt line, a line of a saved stderr
	Trace                    // the trace File (OTLP/JSON), as one document
	Document                 // File as one document (a prepare output, a file given to check)
	Stderr                   // warning Index (1-based) of the input, bound for stderr
	Message                  // error message Index (1-based) of the input, bound for stderr
)

// Where is the output a finding is in.
type Where struct {
	Kind  Kind
	File  string // the output's name (Line, Trace, Document)
	Index int    // 1-based line or message number (Line, Stderr, Message)
}

// String is the location as messages print it: "X.receipt.ndjson line 3",
// "X.otel.json", "stderr message 1".
func (w Where) String() string {
	switch w.Kind {
	case Line:
		return w.File + " line " + strconv.Itoa(w.Index)
	case Stderr:
		return "stderr message " + strconv.Itoa(w.Index)
	case Message:
		return "error message " + strconv.Itoa(w.Index)
	}
	return w.File
}

// Finding is one leak, described without the leaked content.
type Finding struct {
	Where Where
	Line  int    // input line of the raw string; 0 for a secret shape
	What  string // "raw input run of N bytes" or "secret-shaped token (jwt)"
}

// Outputs collects every output string of one gate, each with its Where.
type Outputs struct {
	o     *leak.Outputs
	where []Where
}

// NewOutputs returns an empty collection over the program's vocabulary.
func NewOutputs() (*Outputs, error) {
	v, err := Vocabulary()
	if err != nil {
		return nil, err
	}
	o := leak.NewOutputs(v)
	o.Words = messageWords(v)
	return &Outputs{o: o}, nil
}

// label is the leak package's key for w: its index in o.where, which
// Findings turns back into the Where (no location is ever read from text).
func (o *Outputs) label(w Where) string {
	o.where = append(o.where, w)
	return strconv.Itoa(len(o.where) - 1)
}

// Add records one output string.
func (o *Outputs) Add(s string, w Where) { o.o.Add(s, o.label(w)) }

// AddMessage records a message the program composed (a warning or an error
// bound for stderr): its words may be any of the vocabulary's words.
func (o *Outputs) AddMessage(s string, w Where) { o.o.AddMessage(s, o.label(w)) }

// AddJSON adds every key, string value and number of a JSON document,
// except the values of the keys in skip. OTLP's intValue strings are
// numbers. Numbers under convert.* keys are the pipeline's own measures.
func (o *Outputs) AddJSON(v gjson.Result, w Where, skip map[string]bool) {
	addJSON(o.o, v, o.label(w), skip)
}

func addJSON(outs *leak.Outputs, v gjson.Result, where string, skip map[string]bool) {
	switch {
	case v.Type == gjson.String:
		outs.Add(v.Str, where)
	case v.Type == gjson.Number:
		outs.AddNumber(v.Raw, where)
	case v.IsArray():
		v.ForEach(func(_, e gjson.Result) bool { addJSON(outs, e, where, skip); return true })
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			outs.Add(k.Str, where)
			switch {
			case skip[k.Str]:
			case strings.HasPrefix(k.Str, "convert.") && e.Type == gjson.Number:
			case k.Str == "intValue" && e.Type == gjson.String:
				outs.AddNumber(e.Str, where)
			default:
				addJSON(outs, e, where, skip)
			}
			return true
		})
	}
}

// Checker is the leak check of one Outputs.
type Checker struct {
	*leak.Checker
	o *Outputs
}

// Check returns the checker of these outputs against in (nil: the caller
// feeds raw strings itself, with Pass and Raw).
func (o *Outputs) Check(in *leak.Input) *Checker {
	return &Checker{Checker: o.o.Check(in), o: o}
}

// Findings returns every leak, typed by where it is.
func (c *Checker) Findings() []Finding {
	fs := c.Checker.Findings()
	if len(fs) == 0 {
		return nil
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		n, _ := strconv.Atoi(f.Where)
		out[i] = Finding{Where: c.o.where[n], Line: f.Line, What: f.What}
	}
	return out
}
