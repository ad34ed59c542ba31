package gate

import (
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/internal/jsonscan"
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
// "X.otel.jsonl", "stderr message 1".
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
	nums  *Numbers
}

// NewOutputs returns an empty collection over the program's vocabulary.
func NewOutputs() *Outputs {
	o := leak.NewOutputsOver(isWord())
	o.Words = messageWords
	return &Outputs{o: o}
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
// numbers. Numbers under convert.* keys are the pipeline's own measures;
// a number its writer computed (WithNumbers) is not probed.
func (o *Outputs) AddJSON(v gjson.Result, w Where, skip map[string]bool) {
	addJSON(o.o, v, o.label(w), skip, o.nums)
}

// WithNumbers has the documents added after it judged by the provenance
// of their numbers, n (nil: by the key rules alone).
func (o *Outputs) WithNumbers(n *Numbers) { o.nums = n }

// sink is where addJSON puts what it finds (a *leak.Outputs; a recorder
// in the differential test).
type sink interface {
	Add(s, where string)
	AddNumber(lit, where string)
}

// addJSON walks the valid JSON document v once, byte by byte. It used
// gjson's ForEach at every level, which scans each nested value once per
// level above it: an OTLP trace, eight levels deep, was read eight times.
func addJSON(outs sink, v gjson.Result, where string, skip map[string]bool, nums *Numbers) {
	j := jsonWalk{doc: v.Raw, outs: outs, where: where, skip: skip, nums: nums}
	j.value(j.ws(0))
}

type jsonWalk struct {
	doc   string
	outs  sink
	where string
	skip  map[string]bool
	nums  *Numbers // the outputs' computed numbers; nil: none known
	// attr is the key of the OTLP attribute being read (the "key" member
	// of the object around it), so that its intValue is judged by it as a
	// receipt number is by its member name.
	attr string
}

func (j *jsonWalk) ws(i int) int { return jsonscan.Space(j.doc, i) }

// value adds the value at i and returns the index after it.
func (j *jsonWalk) value(i int) int {
	if i >= len(j.doc) {
		return i
	}
	switch c := j.doc[i]; {
	case c == '{':
		return j.object(i + 1)
	case c == '[':
		return j.array(i + 1)
	case c == '"':
		s, k := j.str(i)
		j.outs.Add(s, j.where)
		return k
	default:
		k := j.scalar(i)
		if c == '-' || c >= '0' && c <= '9' {
			j.outs.AddNumber(j.doc[i:k], j.where)
		}
		return k
	}
}

// scalar returns the end of the number or literal at i.
func (j *jsonWalk) scalar(i int) int {
	for i < len(j.doc) {
		switch j.doc[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// str decodes the string at i (its opening quote): a slice of the document
// when it has no escape, else gjson's decoding of it.
func (j *jsonWalk) str(i int) (string, int) {
	k := i + 1
	esc := false
	for k < len(j.doc) && j.doc[k] != '"' {
		if j.doc[k] == '\\' {
			esc = true
			k++
		}
		k++
	}
	if k >= len(j.doc) {
		return j.doc[i+1:], len(j.doc)
	}
	if esc {
		return gjson.Parse(j.doc[i : k+1]).Str, k + 1
	}
	return j.doc[i+1 : k], k + 1
}

func (j *jsonWalk) object(i int) int {
	outer := j.attr
	defer func() { j.attr = outer }()
	for {
		i = j.ws(i)
		if i >= len(j.doc) || j.doc[i] == '}' {
			return i + 1
		}
		if j.doc[i] == ',' {
			i++
			continue
		}
		key, k := j.str(i)
		j.outs.Add(key, j.where)
		k = j.ws(k)
		if k < len(j.doc) && j.doc[k] == ':' {
			k++
		}
		i = j.member(key, j.ws(k))
	}
}

// member handles the value at i of the member named key.
func (j *jsonWalk) member(key string, i int) int {
	if i >= len(j.doc) {
		return i
	}
	c := j.doc[i]
	number := c == '-' || c >= '0' && c <= '9'
	switch {
	case j.skip[key]:
		return j.skipValue(i)
	case number && (strings.HasPrefix(key, "convert.") || Computed(key) || j.nums.computedAt(key, j.doc[i:j.scalar(i)])):
		return j.scalar(i)
	case c == '"' && key == "key":
		s, k := j.str(i)
		j.outs.Add(s, j.where)
		j.attr = s
		return k
	case c == '"' && key == "intValue":
		s, k := j.str(i)
		if !Computed(j.attr) && !j.nums.computedAt(j.attr, s) {
			j.outs.AddNumber(s, j.where)
		}
		return k
	case c == '[' && CountedLists[key]:
		return j.counted(i + 1)
	}
	return j.value(i)
}

// Computed reports an output number field whose values are the program's
// whoever wrote them: the rule by key, kept as a subset of the rule by
// value (Numbers, which holds every number a writer built with
// receipt.Computed) because a check of output bytes alone (convert
// leakcheck, LeakCheckOutputs) has no notes and goes by it. The token
// counts of gen_ai.usage.* are written as a sum over responses (a
// session's total), a growth between two running totals (Codex) or one
// response's count read from a declared count field of the input
// (leak.Count, leak.Cumulative): never a copy of any other input number,
// so they are not probed. A number at any other key is probed unless the
// notes say its writer computed it: a raw number reaches an output only
// through a declared count field.
//
//	"gen_ai.usage.input_tokens": 600000      not probed, notes or none
//	"gen_ai.usage.responses": 600000         not probed where noted computed; probed by bytes alone
//	"brain.doctor.score.before": 600000      probed (copied): a leak if a raw 600000 is not a declared count
func Computed(key string) bool {
	return strings.HasPrefix(key, "gen_ai.usage.") && strings.HasSuffix(key, "tokens")
}

// CountedLists are summary lists of "name=count" strings: the name is
// checked like any string, the count is the program's own figure (as a
// convert.* number is). Checked whole, a count of 6 digits or more (a
// session of 124,749 assistant records) would leave the string untyped,
// and an untyped string makes the check read the whole input again, a
// large part of a long session's time. TestCountedListIsTyped guards it.
var CountedLists = map[string]bool{"convert.input.record_types": true}

// counted adds the strings of a CountedLists array at i (after its '['),
// each without its "=<digits>" end.
func (j *jsonWalk) counted(i int) int {
	return j.elements(i, func(i int) int {
		if j.doc[i] != '"' {
			return j.value(i)
		}
		s, k := j.str(i)
		j.outs.Add(WithoutCount(s), j.where)
		return k
	})
}

// WithoutCount is s without a final "=<digits>", when it has one.
func WithoutCount(s string) string {
	e := strings.LastIndexByte(s, '=')
	if e < 0 || e == len(s)-1 {
		return s
	}
	for _, c := range s[e+1:] {
		if c < '0' || c > '9' {
			return s
		}
	}
	return s[:e]
}

func (j *jsonWalk) array(i int) int { return j.elements(i, j.value) }

// elements calls each at every element of the array whose content starts
// at i (after its '['), and returns the index after the array.
func (j *jsonWalk) elements(i int, each func(int) int) int {
	for {
		i = j.ws(i)
		if i >= len(j.doc) || j.doc[i] == ']' {
			return i + 1
		}
		if j.doc[i] == ',' {
			i++
			continue
		}
		i = each(i)
	}
}

// skipValue returns the end of the value at i without adding anything.
func (j *jsonWalk) skipValue(i int) int {
	switch j.doc[i] {
	case '"':
		_, k := j.str(i)
		return k
	case '{', '[':
		depth := 0
		for k := i; k < len(j.doc); k++ {
			switch j.doc[k] {
			case '"':
				_, e := j.str(k)
				k = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return k + 1
				}
			}
		}
		return len(j.doc)
	}
	return j.scalar(i)
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
