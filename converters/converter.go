// Package converters maps agent log records to receipt events.
//
// A converter's State is pure: no I/O, clock, randomness or goroutines.
// What a format does with the disk sits in its Format, apart from the
// State: a layout may list a directory or peek at a file's first lines
// (Layout.Session, Sibling: os.ReadDir), and a Format.Store runs SQL over
// the agent's database, read-only. The pipeline reads and checks the input, creates one State per input file, hands it one
// record at a time, then calls End; it adds "path:line: name:" to any error a
// converter returns, runs the leak check and validates and writes the output.
//
// This package is the contract and the registry; the converters are the
// packages under it (converters/all lists what the binary links). Adding
// an agent's log format is one package, converters/<agent>, that registers
// a Converter with a Format (format.go) in init() and declares its new
// events (events.DeclareEvent), plus its samples in samples/<name>/ and
// goldens in golden/<name>/: docs/adding-a-format.md. The conformance test
// in this package fails until all of them exist.
package converters

import (
	"fmt"
	"path"
	"runtime"
	"sort"
	"strings"

	"sync"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Converter describes one kind of input and how to map it.
type Converter struct {
	Name string // lower_snake; names the file, samples/ and golden/ folders
	// Package is the import path of the package that registered it, set
	// by the registry (its room: tests and docs find its folder by it).
	Package  string
	Doc      string // one line for `convert list`
	SpanName string // name of the root span of every trace it writes
	// TypeField and TimeField are the gjson paths of each record's type and
	// time (a native Format's Type and Time functions, when set, replace
	// them: RecordType, RecordTime). Types lists the record types it reads: the pipeline skips (and
	// counts) any other type, and detection scores inputs by them.
	TypeField, TimeField string
	Types                []string
	// Hints are top-level field names whose presence in an input's first
	// records points to this converter, for logs whose record types alone
	// do not tell two converters apart.
	Hints []string
	// OpenTypes hands records of unknown types to the converter instead of
	// skipping them: native formats add record types every month, and an
	// unknown one is normal there (the converter counts it).
	OpenTypes bool
	// PassThrough lists the fields whose token values may appear verbatim in
	// output (ids, enums). Every other input string is raw for the leak check.
	PassThrough leak.Paths
	// Labels lists the values of its label fields (leak.Label) that the
	// converter knows beyond the words its code names: a label is written
	// in clear only when it is one of the program's words, and these are
	// (Words). Any other label value is written as its digest.
	Labels []string
	// Events lists every event name it may emit; each needs a schema.
	Events []string
	New    func(Env) State
	// Native is set for an agent's own log format: how it finds record
	// types and times, groups files into sessions, where its logs live
	// and what seeds its fuzzing (format.go).
	Native *Format
}

// Env is what a converter may know about its run.
type Env struct {
	Hash receipt.Hasher
	// RevealNames writes MCP server and tool names, skill names and subagent
	// types in clear (when they are tokens) instead of as digests. Never
	// content: prompts, arguments and results stay raw.
	RevealNames bool
	// Companions is how many files of the input group follow the main
	// file (subagent transcripts, say): a reader that keeps something of
	// the main file only for its companions need not when there are none.
	Companions int
	// Know is what the reader's Format declares of the values it writes
	// (its IDs and Models), set by the registry for every State it makes.
	Know leak.Knowledge
	// Folders are the names of the main file's last folders, nearest last
	// (".../<session uuid>/agents/main/wire.jsonl": ..., "<session uuid>",
	// "agents", "main"): raw input like any line, for a reader whose
	// agent names a session by its folder (Kimi) to admit as an id.
	Folders []string
}

// FolderNames returns the names of the last n folders of the slash or OS
// path p, nearest last (Env.Folders).
func FolderNames(p string, n int) []string {
	p = strings.ReplaceAll(p, "\\", "/")
	var out []string
	for dir := path.Dir(p); len(out) < n && dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		out = append([]string{path.Base(dir)}, out...)
	}
	return out
}

// Record is one input line: a borrowed view (package view).
type Record = view.Record

// RecordIndex makes the records of one input's lines in one memory.
type RecordIndex = view.RecordIndex

// ScannedRecord is the record of a scanned JSON object line (view.ScannedRecord).
func ScannedRecord(line string, members []jsonscan.Member) Record {
	return view.ScannedRecord(line, members)
}

// SourceFile is one file of an input group: a session's main transcript
// and its companions (subagent transcripts). Meta is the parsed sidecar
// (agent-<id>.meta.json) when one exists; it is raw input like any line,
// and valid only in the StartFile call that receives it (borrow:call).
type SourceFile struct {
	Index int
	Rel   string // slash path relative to the main file's directory
	Meta  view.Value
}

// FileStarter is implemented by states that read input groups: StartFile is
// called before the first record of each file.
type FileStarter interface {
	StartFile(f SourceFile, out *Output) error
}

// State converts one input file.
type State interface {
	Record(r Record, out *Output) error
	End(out *Output) error
}

// CountReader is implemented by states that read counts (tokens, calls):
// InvalidCounts is how many they have read as 0 so far because they were
// out of the range a count is admitted in (the native readers' count). The
// pipeline keeps such a record and names the gap in the summary.
type CountReader interface {
	InvalidCounts() int64
}

// Output collects what a State writes: events, the root span's attributes,
// child spans, extra summary attributes and the key its trace id is derived
// from.
type Output struct {
	Events   []receipt.Event
	Span     receipt.Attrs
	TraceKey string // e.g. the session id; "" lets the pipeline use the input digest
	Spans    []Span
	Summary  receipt.Attrs // added to convert.summary (keys must be in its schema)
	Links    []Link        // links of the root span
	Skills   []Skill       // the root span's gen_ai.skills
}

// Skill is one entry of an agent span's gen_ai.skills: a skill whose
// instructions entered that agent's context (named as the receipt names
// it: by digest unless names are revealed), and whether a compaction has
// since replaced them with a summary.
type Skill struct {
	Name      string
	Compacted bool
}

// Span is a child span. Keys are unique within an input; span ids derive
// from them, so they must be stable (session id, agent id, record uuid).
type Span struct {
	Key, Parent string // Parent "" is the root span
	Name        string
	Start, End  int64 // unix nanoseconds
	Attrs       receipt.Attrs
	Rare        *SpanRare // nil on most spans
	Kind        int8      // OTLP span kind (1 internal, 3 client)
	Error       bool
}

// SpanRare is what few spans have. Behind a pointer it costs the others 8
// bytes, not 48: a long session keeps a hundred thousand spans live, so a
// field most spans leave empty belongs here, not in Span.
type SpanRare struct {
	Links  []Link
	Skills []Skill // gen_ai.skills of an invoke_agent span
}

// Cover stretches s to cover the time ns (unix nanoseconds; 0 is no time).
func (s *Span) Cover(ns int64) {
	if ns == 0 {
		return
	}
	if s.Start == 0 || ns < s.Start {
		s.Start = ns
	}
	s.Reach(ns)
}

// Reach moves the end of s to ns when that is later, leaving its start: a
// late sign of life of a call or an agent (its result, a message).
func (s *Span) Reach(ns int64) {
	if ns > s.End {
		s.End = ns
	}
}

// Link points a span at the root span of another input's trace: the
// pipeline derives that trace's id from the converter and the key (the
// session or thread id) exactly as it derives every trace id, so two
// rollouts link to each other without either being read twice.
type Link struct {
	TraceKey string // the other trace's TraceKey (its session or thread id)
	Attrs    receipt.Attrs
}

// Emit appends an event.
func (o *Output) Emit(ev receipt.Event) { o.Events = append(o.Events, ev) }

var registry = map[string]Converter{} // written only by init functions

// validName reports a converter name: a lower-case letter, then up to 62
// lower-case letters, digits and underscores (^[a-z][a-z0-9_]{0,62}$,
// written out: register runs at init for every converter).
func validName(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Register adds a converter defined outside this package (a test's, or a
// plugin's); the rules are register's. Its words become the gate's words
// (gate.AddWords): the generated vocabulary holds only the shipped
// converters'.
func Register(c Converter) {
	RegisterBuiltin(c)
	external = append(external, c.Name)
	gate.AddWords(c.Words()...)
}

// Words are the words a converter gives the program's vocabulary: its
// name, span name and instrumentation scope, record types, event names
// and known labels.
func (c Converter) Words() []string {
	out := []string{c.Name, c.SpanName, gate.ScopePrefix + c.Name}
	out = append(out, c.Types...)
	out = append(out, c.Labels...)
	return append(out, c.Events...)
}

// external names the converters Register added, in order.
var external []string

// External returns the converters registered from outside this package
// (Register), in registration order: the generated vocabulary holds the
// words of every other converter.
func External() []Converter {
	out := make([]Converter, 0, len(external))
	for _, n := range external {
		out = append(out, registry[n])
	}
	return out
}

func RegisterBuiltin(c Converter) {
	switch {
	case !validName(c.Name):
		panic(fmt.Sprintf("converters: invalid name %q", c.Name))
	case c.New == nil || c.Doc == "" || c.SpanName == "":
		panic("converters: " + c.Name + ": New, Doc and SpanName are required")
	case registry[c.Name].Name != "":
		panic("converters: duplicate name " + c.Name)
	}
	c.Types = append([]string(nil), c.Types...)
	sort.Strings(c.Types) // the pipeline looks types up by binary search
	c.Package = registeringPackage()
	c = withKnowledge(c)
	registry[c.Name] = c
	allMu.Lock()
	allSorted, natives = nil, nil
	allMu.Unlock()
}

// registeringPackage is the import path of the first caller outside this
// package: the reader's (or the scenario engine's) package that registers.
func registeringPackage() string {
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if pkg := funcPackage(f.Function); pkg != "" && pkg != thisPackage {
			return pkg
		}
		if !more {
			return ""
		}
	}
}

const thisPackage = "github.com/contextreceipts/convert/converters"

// funcPackage is the import path in a function's full name
// (github.com/x/y/pkg.init.0.func1 -> github.com/x/y/pkg).
func funcPackage(name string) string {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return name[:slash+1+dot]
}

// withKnowledge makes c's New hand every State its Format's knowledge of
// the values it writes (Env.Know: its id grammar and own model names).
func withKnowledge(c Converter) Converter {
	if know := c.Knowledge(); know != nil {
		newState := c.New
		c.New = func(env Env) State { env.Know = *know; return newState(env) }
	}
	return c
}

// Knowledge is what c's reader knows of the values it writes, its
// Format's IDs and Models: what its States write ids by (Env.Know), and
// so what the leak check admits them by (leak.Input.Line, Checker.Line).
// Nil for a converter of no agent (a scenario's), whose ids are written,
// and checked, by their shape alone (leak.Shape.Clear).
func (c Converter) Knowledge() *leak.Knowledge {
	if c.Native == nil {
		return nil
	}
	return &leak.Knowledge{IDs: c.Native.IDs, Models: c.Native.Models}
}

// All returns the registered converters sorted by name.
// The list is shared: callers must not modify it.
func All() []Converter {
	all, _ := lists()
	return all
}

// lists returns All's and Natives' lists, made on first use.
func lists() (all, native []Converter) {
	allMu.Lock()
	defer allMu.Unlock()
	if allSorted == nil {
		for _, c := range registry {
			allSorted = append(allSorted, c)
			if c.Native != nil {
				natives = append(natives, c)
			}
		}
		sort.Slice(allSorted, func(i, j int) bool { return allSorted[i].Name < allSorted[j].Name })
		sort.Slice(natives, func(i, j int) bool { return natives[i].Name < natives[j].Name })
	}
	return allSorted, natives
}

// allSorted and natives are All's and Natives' lists, made once (register
// resets them) and shared by every caller, who must not modify them:
// detection asks for them several times per input, so they must not be
// sorted or copied per call (a run over an unchanged history does little
// else but detect).
var (
	allMu     sync.Mutex
	allSorted []Converter
	natives   []Converter
)

// Lookup returns the converter called name.
func Lookup(name string) (Converter, bool) {
	c, ok := registry[name]
	return c, ok
}

// Names returns the registered names, sorted.
func Names() []string {
	var out []string
	for _, c := range All() {
		out = append(out, c.Name)
	}
	return out
}
