package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/usage"
)

// Version is the converter suite version written in every summary.
const Version = "0.1.0"

// Options are the settings of one run; the zero value is the default.
type Options struct {
	Converter string // "" or "auto": detect from content
	Strict    bool   // any skipped line fails the input
	MaxLine   int    // longest line converted; jsonl.DefaultMaxLine if 0
	Hash      receipt.Hasher
	MaxDiags  int  // warnings printed per input before they are only counted; 20 if 0
	Reveal    bool // --reveal names: see converters.Env.RevealNames
	// ServiceName overrides the trace's service.name (the agent by default).
	ServiceName string
	// OTelFormat is the trace's layout: "jsonl" (the default, also "") is
	// the OpenTelemetry file-exporter layout, one compact TracesData per
	// line in X.otel.jsonl, which the Collector's otlpjsonfile receiver
	// reads; "json" is one indented TracesData document in X.otel.json,
	// for people who read traces by eye (compact past otlp.IndentLimit).
	OTelFormat string
	// LegacyGenAINames also writes the old name of each renamed GenAI span
	// attribute next to the current one (otlp.LegacyNames).
	LegacyGenAINames bool
	// Progress, when set, is advanced by the bytes read in pass one.
	Progress *atomic.Int64
	// FS, when set, holds the input files (paths are its names): an input
	// converted in memory (ConvertFS). Nil reads the OS's files.
	FS fs.FS
	// PoisonLines, for tests, overwrites each input line once it has been
	// converted, as the convertpoison build does for every run: a
	// converter that keeps a string of a record without one of view's exits
	// then changes its outputs, and the goldens catch it.
	PoisonLines bool
}

// Result is the outcome of converting one input. On failure Receipt and Trace
// are nil: nothing is written.
type Result struct {
	Path      string // how messages name the input (Input.Shown), never opened
	Rel       string // relative to its argument, slash-separated
	Converter string
	Receipt   []byte
	Trace     []byte
	// Responses are the trace's chat spans that carry token usage, taken
	// as the spans were written (usage.Responses reads the same from the
	// trace, which a long session's would cost a second pass).
	Responses []usage.Response
	Diags     []string // warnings for stderr, already leak-checked
	Err       error
	Stats     Stats
	Files     []FileInfo    // every file read, main first, as it was on disk
	Unchanged bool          // skipped: the manifest shows the input and settings unchanged
	numbers   *gate.Numbers // the provenance of the outputs' numbers (LeakCheckInput)
}

// FileInfo identifies one file of an input as it was read.
type FileInfo struct {
	Path   string
	Size   int64
	SHA256 []byte
}

// Stats accounts for every line of the input.
type Stats struct {
	Bytes, Lines, Blank, Records, Skipped int64
	Known                                 int64 // records of a type the converter lists (not just accepts)
	SkipReasons                           map[string]int64
	InvalidTimes                          int64           // records kept without their time, which did not parse (untimed.go)
	InvalidCounts                         int64           // records kept with a count out of range, read as 0 (untimed.go)
	UnknownTypes                          map[string]bool // digests
	Events                                int
	// Untyped counts the output strings with no provenance (checked whole
	// against the input): our own outputs should have none.
	Untyped int
}

// file is the state of one conversion: one input, or one input group (a
// session and its companion transcripts).
type file struct {
	nums  *gate.Numbers // noted by finish
	ctx   context.Context
	opt   Options
	in    Input
	path  string // the file being read now, for messages
	rel   string
	conv  converters.Converter
	know  *leak.Knowledge // conv's, which the leak check admits ids by
	state converters.State
	out   converters.Output
	stats Stats
	// responses are the chat spans' usage, kept as the trace is written
	responses []usage.Response
	diags     []string
	srcs      []source
	sum       []byte // sha256 of the main file
	start     int64  // earliest record time, unix ns; 0 when none
	end       int64
	// input is what the leak check learns in pass one: the admitted
	// pass-through values and raw numbers of every converted line.
	input *leak.Input
	// members is the scratch of jsonscan.Scan, one line at a time.
	members []jsonscan.Member
	index   converters.RecordIndex // the records' index, reused line after line
	// spans are the read buffers the input's lines were handed out of
	// (jsonl.Reader.Spans): finish checks no output string points into one.
	spans [][]byte
	scans *scanCache // detection's scans of the main file's first lines
	// first is the main file detection read, open at its first byte, until
	// pass one takes it (nil: pass one opens it).
	first *fs.File
}

// source is one file of the group as the two passes see it.
type source struct {
	path, rel   string
	name        string // how messages name the file (Input.Name)
	meta        []byte // compacted sidecar JSON, nil when none
	metaSum     []byte // sha256 of a main file's own sidecar, nil when none
	converted   bitset // lines handed to the converter
	sum         []byte // sha256 of the file as it is on disk
	size        int64
	mtime       int64  // unix ns when pass one opened it
	seqBase     int64  // lines of the group's earlier files: a record's Seq is seqBase + its line
	compression string // "", "gzip" or "zstd"
}

// Convert converts one input file to receipt and trace bytes, fails closed
// on leaks and schema violations, and never panics on bad input.
func Convert(in Input, opt Options) Result { return ConvertContext(context.Background(), in, opt) }

// ConvertContext is Convert that stops early, failing the input, when ctx
// is cancelled.
func ConvertContext(ctx context.Context, in Input, opt Options) (res Result) {
	path, rel := in.Path, in.Rel
	res = Result{Path: in.Shown(), Rel: rel}
	defer func() {
		if p := recover(); p != nil {
			res.Receipt, res.Trace = nil, nil
			res.Err = &InputError{Path: in.Shown(), Converter: res.Converter, Msg: fmt.Sprintf("internal error: %v", p)}
		}
	}()
	conv, first, scans, err := pickScanned(path, opt)
	if first != nil {
		defer func() {
			if first != nil {
				first.Close()
			}
		}()
	}
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			ie.Path = in.Shown()
		}
		if scans != nil { // detection read it, then refused it
			res.Stats.Bytes = scans.read
		}
		res.Err = err
		return res
	}
	res.Converter = conv.Name
	f := &file{ctx: ctx, opt: opt, in: in, path: in.Shown(), rel: rel, conv: conv, know: conv.Knowledge(), state: conv.New(converters.Env{Hash: opt.Hash, RevealNames: opt.Reveal, Companions: len(in.Companions), Folders: converters.FolderNames(in.Path, 3)}),
		stats: Stats{SkipReasons: map[string]int64{}, UnknownTypes: map[string]bool{}}, input: checkInput(opt.Reveal),
		first: &first, scans: scans}
	if err := f.read(); err != nil {
		res.Err, res.Diags, res.Stats = f.screenFailure(err), f.diags, f.stats
		return res
	}
	res.Receipt, res.Trace, res.Err = f.finish()
	res.numbers = f.nums
	res.Diags, res.Stats, res.Responses = f.diags, f.stats, f.responses
	for _, s := range f.srcs {
		res.Files = append(res.Files, FileInfo{Path: s.path, Size: s.size, SHA256: s.sum})
	}
	if res.Err != nil {
		res.Receipt, res.Trace = nil, nil
	}
	return res
}

// pick names the converter of the input at path: the one asked for, or the
// one detection finds. Detection also returns the main file, open at its
// first byte, for pass one (the caller closes it when it is not nil).
func pick(path string, opt Options) (converters.Converter, fs.File, error) {
	c, fh, _, err := pickScanned(path, opt)
	return c, fh, err
}

// pickScanned is pick that also returns what detection's scans found on
// the main file's first lines (nil when it did not detect), for pass one.
func pickScanned(path string, opt Options) (converters.Converter, fs.File, *scanCache, error) {
	if opt.Converter != "" && opt.Converter != "auto" {
		c, ok := converters.Lookup(opt.Converter)
		if !ok {
			return c, nil, nil, &InputError{Path: path, Msg: fmt.Sprintf("unknown converter %q", opt.Converter)}
		}
		if c.Native == nil {
			return c, nil, nil, nil
		}
		// An agent's reader asked for by name still reads only its own
		// format: detection among it alone must claim the input, so that
		// another agent's log is refused rather than read as this one's.
		scans := &scanCache{seed: lineSeed}
		types, keys, fh, err := peekOpen(opt.FS, path, converters.TypersOf([]converters.Converter{c}), scans)
		if err != nil {
			return c, fh, nil, readFailure(path, err)
		}
		if _, err := converters.DetectAmong([]converters.Converter{c}, types, keys); err != nil && scans.objects() > 0 {
			// Refused on evidence: whole JSON records that are not this
			// format's. With none in what detection reads (a first line
			// longer than DetectBytes, one that never ends), the name
			// given is taken as asked: it is how such an input converts.
			return c, fh, scans, &InputError{Path: path, Converter: c.Name, Msg: fmt.Sprintf(
				"not a %s log: its first lines are not in that format's shape, nothing written (--converter auto detects the kind)", c.Name)}
		}
		return c, fh, scans, nil
	}
	scans := &scanCache{seed: lineSeed}
	types, keys, fh, err := peekOpen(opt.FS, path, converters.Typers(), scans)
	if err != nil {
		return converters.Converter{}, fh, nil, readFailure(path, err)
	}
	c, err := converters.Detect(types, keys)
	if err != nil {
		if errors.Is(err, converters.ErrNoKind) {
			return c, fh, scans, &InputError{Path: path, Msg: err.Error() + shapeHint(opt.FS, path) + longHint(opt.FS, path)}
		}
		return c, fh, scans, &InputError{Path: path, Msg: err.Error()}
	}
	return c, fh, scans, nil
}

// readFailure is the error of an input that could not be read: the input
// error the reading names itself (a document broken at a line), else one
// naming path.
func readFailure(path string, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	return &InputError{Path: path, Msg: err.Error()}
}

// PeekTypes is what detection reads of the input at path: how often each
// record type occurs in its first lines by each way of finding types
// (typers, e.g. converters.TypersOf a few converters), and the top-level
// keys of the typed lines. Tests use it to see an input as a build without
// some reader does.
func PeekTypes(path string, typers []converters.Typer) (map[string]map[string]int, map[string]bool, error) {
	return peekTypes(nil, path, typers)
}

// peekTypes reads at most 64 lines (of at most 1 MiB each) and returns how
// often each record type occurs there by each way of finding types, and
// the top-level keys of the lines that have a type.
func peekTypes(fsys fs.FS, path string, fields []converters.Typer) (map[string]map[string]int, map[string]bool, error) {
	types, keys, fh, err := peekOpen(fsys, path, fields, nil)
	if fh != nil {
		fh.Close()
	}
	return types, keys, err
}

// peekOpen is peekTypes that also returns the file, open at its first
// byte again (nil when it cannot seek), for pass one to read, and keeps
// its scans in scans when that is not nil.
func peekOpen(fsys fs.FS, path string, fields []converters.Typer, scans *scanCache) (types map[string]map[string]int, keys map[string]bool, file fs.File, err error) {
	fh, err := openFrom(fsys, path, false)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if scans != nil {
			scans.read = fh.n
		}
		file = fh.Rewind()
	}()
	// A line is judged whole up to the bound: a session whose first
	// records are each megabytes (a pasted file) is still recognised.
	r := jsonl.NewReader(io.LimitReader(fh.Reader, DetectBytes), DetectBytes)
	defer r.Release()
	types, keys = map[string]map[string]int{}, map[string]bool{}
	var members []jsonscan.Member
	var index converters.RecordIndex
	for _, f := range fields {
		types[f.Key] = map[string]int{}
	}
	for i := 0; i < 64; i++ {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if l.TooLong {
			continue
		}
		// One scan validates the line and indexes the top-level fields
		// every typer reads.
		members = members[:0]
		object, err := jsonscan.Scan(l.Bytes, &members)
		scans.add(l, object, err, members)
		if err != nil {
			continue // junk says nothing about the kind
		}
		// The record is a view of the read buffer, used in this loop only
		// (detection must not copy each line); what the maps keep is
		// owned. A map assignment stores the key it is given, an existing
		// key too, so a type is copied every time it is counted.
		rec := index.Scanned(bytesView(l.Bytes), members)
		typed := false
		for _, f := range fields {
			if t := f.Type(rec); t.IsString() {
				types[f.Key][t.Str().Own()]++
				typed = true
			}
		}
		if typed {
			rec.TopKeys(func(k view.Text) {
				if _, seen := view.Lookup(keys, k); !seen {
					keys[k.Own()] = true
				}
			})
		}
		jsonl.Scribble(l.Bytes)
	}
	return types, keys, nil, nil
}

func openError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return errors.New(pe.Err.Error())
	}
	return err
}

// open opens file i of the group for pass one: the main file is the one
// detection read, when it handed it over.
func (f *file) open(i int) (*input, error) {
	if i == 0 && f.first != nil && *f.first != nil {
		fh := *f.first
		*f.first = nil // this reading closes it
		return reading(fh, f.srcs[i].path, true)
	}
	return openFrom(f.opt.FS, f.srcs[i].path, true)
}

// read is pass one: stream every file of the input, classify every line,
// feed records to the converter.
func (f *file) read() error {
	// Companion paths are relative to the main file's directory, so the
	// main file is named by its base name: the group digest must not depend
	// on whether a folder or the session file was given.
	main := source{path: f.in.Path, name: f.in.Shown(), rel: path.Base(f.in.Rel)}
	if f.in.Meta != "" && (f.conv.Native == nil || f.conv.Native.Layout.MainSidecar != nil) { // a format that declares none never sees one
		m, sum, err := readMetaSum(f.opt.FS, f.in.Meta)
		if err != nil {
			return &InputError{Path: orPath(f.in.MetaName, f.in.Meta), Converter: f.conv.Name, Msg: err.Error()}
		}
		main.meta, main.metaSum = m, sum
		f.input.Pass(f.in.Meta)
		f.input.Pass(path.Base(f.in.Meta))
	}
	f.srcs = append(f.srcs, main)
	for _, c := range f.in.Companions {
		src := source{path: c.Path, name: orPath(c.Name, c.Path), rel: c.Rel}
		if c.Meta != "" {
			m, err := readMeta(f.opt.FS, c.Meta)
			if err != nil {
				return &InputError{Path: orPath(c.MetaName, c.Meta), Converter: f.conv.Name, Msg: err.Error()}
			}
			src.meta = m
		}
		f.srcs = append(f.srcs, src)
	}
	// Paths are the user's words, not input content: an input named after
	// something its records also say is not a leak.
	f.input.Pass(path.Base(f.rel))
	f.input.Pass(InputFileName(f.opt.Hash, path.Base(f.rel))) // the summary's convert.input.path: ours
	if f.opt.ServiceName != "" {
		f.input.Pass(f.opt.ServiceName) // the user's own words
	}
	for _, s := range f.srcs {
		f.input.Pass(s.path)
		f.input.Pass(path.Base(s.path))
		f.input.Pass(s.rel)
		for _, id := range pathIDs(s.path) {
			f.input.Pass(id)
		}
	}
	for i := range f.srcs {
		if err := f.readFile(i); err != nil {
			return err
		}
	}
	f.path = f.in.Shown()
	f.sum = f.srcs[0].sum
	bad := f.invalidCounts()
	if err := f.state.End(&f.out); err != nil {
		return &InputError{Path: f.path, Converter: f.conv.Name, Msg: err.Error()}
	}
	if f.invalidCounts() > bad {
		if err := f.keepBadCount(0); err != nil { // a count the reader reads only at the end
			return err
		}
	}
	// The converter is done: what it kept to build its output (its maps of
	// tools, messages, agents: tens of MB for a long session) must be
	// garbage from here on, before the outputs are built.
	f.state = nil
	return nil
}

// pathIDs are the ids a file's path carries: its name without its
// extensions, the UUID it ends with, if any (Codex's
// rollout-<time>-<uuid>.jsonl, Cursor's <uuid>.jsonl), and what follows
// its first dash (Claude Code's agent-<id>.jsonl); and the UUIDs among the
// names of its last folders (Env.Folders: Kimi's .../<session uuid>/wire.jsonl).
// Readers take a session's or a subagent's id from them when no record
// names it, and they are the user's words like the rest of the path.
func pathIDs(p string) []string {
	ids := fileIDs(path.Base(p))
	for _, d := range converters.FolderNames(p, 3) {
		if leak.UUID.Admit(d) {
			ids = append(ids, d)
		}
	}
	return ids
}

// fileIDs are the ids of a file's name (pathIDs).
func fileIDs(name string) []string {
	stem := name
	for _, ext := range []string{".gz", ".zst", ".jsonl"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	ids := []string{stem}
	if n := len(stem); n > 36 && leak.UUID.Admit(stem[n-36:]) {
		ids = append(ids, stem[n-36:])
	}
	if i := strings.IndexByte(stem, '-'); i > 0 && i < len(stem)-1 {
		ids = append(ids, stem[i+1:])
	}
	return ids
}

func (f *file) readFile(i int) error {
	src := &f.srcs[i]
	f.path = src.name
	if fs, ok := f.state.(converters.FileStarter); ok {
		sf := converters.SourceFile{Index: i, Rel: src.rel}
		if src.meta != nil {
			sf.Meta = view.Parse(bytesView(src.meta)) // src.meta is the input's own, never written again
		}
		if err := fs.StartFile(sf, &f.out); err != nil {
			return &InputError{Path: src.name, Converter: f.conv.Name, Msg: err.Error()}
		}
	}
	if src.meta != nil {
		f.input.Line(src.meta, f.conv.PassThrough, f.know) // input, whether or not the reader looked
	}
	fh, err := f.open(i)
	if err != nil {
		return &InputError{Path: src.name, Msg: err.Error()}
	}
	defer fh.Close()
	if st, err := fh.file.Stat(); err == nil {
		src.mtime = st.ModTime().UnixNano()
	}
	src.seqBase = f.stats.Lines
	r := jsonl.NewReader(stopping(f.ctx, fh.Reader), f.opt.MaxLine)
	defer r.Release()
	var reported int64
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, ErrInterrupted) {
			return &InputError{Path: src.name, Line: r.Lines() + 1, Converter: f.conv.Name, Msg: "interrupted", Err: ErrInterrupted}
		}
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				return ie
			}
			return &InputError{Path: src.name, Line: r.Lines() + 1, Msg: "read error: " + openError(err).Error()}
		}
		if l.N%1024 == 0 {
			if err := f.ctx.Err(); err != nil {
				return &InputError{Path: src.name, Line: l.N, Converter: f.conv.Name, Msg: "interrupted", Err: ErrInterrupted}
			}
			if f.opt.Progress != nil {
				f.opt.Progress.Add(fh.n - reported)
				reported = fh.n
			}
		}
		err = f.line(i, l)
		if f.opt.PoisonLines {
			for j := range l.Bytes {
				l.Bytes[j] = '#'
			}
		}
		jsonl.Scribble(l.Bytes)
		if err != nil {
			return err
		}
	}
	f.spans = append(f.spans, r.Spans()...)
	if f.opt.Progress != nil {
		f.opt.Progress.Add(fh.n - reported)
	}
	sum, n := fh.FileSum()
	src.size = n
	f.stats.Bytes += n
	f.stats.Lines += int64(r.Lines())
	f.stats.Blank += int64(r.Blank)
	src.sum, src.compression = sum, fh.Compression
	return nil
}

// readMeta reads a sidecar JSON document (at most 1 MiB, nested no deeper
// than a line may be: readers query it as they do records) as one compact
// line.
func readMeta(fsys fs.FS, path string) ([]byte, error) {
	doc, _, err := readMetaSum(fsys, path)
	return doc, err
}

// readMetaSum is readMeta, with the sha256 of the file as it is on disk.
func readMetaSum(fsys fs.FS, path string) ([]byte, []byte, error) {
	fh, err := openFile(fsys, path)
	if err != nil {
		return nil, nil, openError(err)
	}
	defer fh.Close()
	raw, err := io.ReadAll(io.LimitReader(fh, 1<<20+1))
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if len(raw) > 1<<20 || json.Compact(&b, raw) != nil || !jsonscan.Valid(b.Bytes()) || !utf8.Valid(b.Bytes()) {
		return nil, nil, errors.New("sidecar is not a JSON document of at most 1 MiB")
	}
	sum := sha256.Sum256(raw)
	return b.Bytes(), sum[:], nil
}

// line classifies one line; a non-nil error fails the input.
func (f *file) line(i int, l jsonl.Line) error {
	switch {
	case l.TooLong:
		return f.skip(l.N, "line_too_long", "")
	case !utf8.Valid(l.Bytes):
		return f.skip(l.N, "invalid_utf8", "")
	}
	// One scan validates the line, indexes its top-level fields and does
	// the leak check's first pass over it (or detection's scan did the
	// first two, on the main file's first lines, and the walker does the
	// third below). What the first pass learns counts only once the line
	// is known to be converted: walk settles it on every return.
	f.members = f.members[:0]
	object, err, scanned := f.scans.lookup(i, l, &f.members)
	var first *leak.Visitor
	if !scanned {
		first = f.input.Visitor(f.conv.PassThrough, f.know)
		object, err = jsonscan.ScanVisit(l.Bytes, &f.members, first)
	}
	kept := false
	defer func() {
		switch {
		case first == nil && kept:
			f.input.Line(l.Bytes, f.conv.PassThrough, f.know)
		case first != nil && kept:
			first.Commit()
		case first != nil:
			first.Discard()
		}
	}()
	switch {
	case errors.Is(err, jsonscan.ErrDepth):
		return f.skip(l.N, "nested_too_deeply", "")
	case err != nil && l.Unended:
		return f.skip(l.N, "truncated_last_line", "")
	case err != nil:
		return f.skip(l.N, "malformed_json", "")
	case !object:
		return f.skip(l.N, "not_an_object", "")
	}
	// The record is a view of the reader's buffer, valid for this line
	// only: what the converter keeps goes through one of view's exits, and
	// finish checks that no output string points into a read buffer.
	rec := f.index.Scanned(bytesView(l.Bytes), f.members)
	rec.Line, rec.File, rec.Seq = l.N, i, f.srcs[i].seqBase+int64(l.N)
	typ := f.conv.RecordType(rec)
	if !typ.IsString() {
		return f.skip(l.N, "missing_type", "")
	}
	known, isKnown := typ.Str().SortedWord(f.conv.Types)
	if !f.conv.OpenTypes && !isKnown {
		d := typ.Str().Digest(f.opt.Hash) // keyed in keyed mode: a type name is guessable
		f.stats.UnknownTypes[d] = true
		return f.skip(l.N, "unknown_record_type", " "+d)
	}
	rec.Type, rec.TypeText = known, typ.Str()
	kept = true
	if isKnown {
		f.stats.Known++
	}
	if tf := f.conv.RecordTime(rec); tf.Exists() {
		if t, ok := parseTime(tf); ok {
			rec.Time, rec.NS = formatTime(t), t.UnixNano()
			f.see(t)
		} else if err := f.keepUntimed(l.N); err != nil {
			return err
		}
	}
	bad := f.invalidCounts()
	if err := f.state.Record(rec, &f.out); err != nil {
		f.srcs[i].converted.set(l.N) // its raw strings screen the error message
		return &InputError{Path: f.path, Line: l.N, Converter: f.conv.Name, Msg: strings.Clone(err.Error())}
	}
	if f.invalidCounts() > bad {
		if err := f.keepBadCount(l.N); err != nil {
			f.srcs[i].converted.set(l.N)
			return err
		}
	}
	f.stats.Records++
	f.srcs[i].converted.set(l.N)
	return nil
}

// skip counts a skipped line and warns, or fails the input under --strict.
// detail never holds raw content: only digests of it.
func (f *file) skip(n int, reason, detail string) error {
	f.stats.Skipped++
	f.stats.SkipReasons[reason]++
	msg := (&InputError{Path: f.path, Line: n, Converter: f.conv.Name, Msg: "skipped line: " + reason + detail}).Error()
	if f.opt.Strict {
		return &InputError{Path: f.path, Line: n, Converter: f.conv.Name, Msg: reason + detail + " (--strict)"}
	}
	f.warn(msg)
	return nil
}

func (f *file) see(t time.Time) {
	ns := t.UnixNano()
	if f.start == 0 || ns < f.start {
		f.start = ns
	}
	if ns > f.end {
		f.end = ns
	}
}

func parseTime(v view.Value) (time.Time, bool) {
	if !v.IsString() {
		return time.Time{}, false
	}
	var t time.Time
	var err error
	v.Str().Check(func(s string) bool { t, err = time.Parse(time.RFC3339Nano, s); return err == nil })
	if err != nil || t.Year() < 1970 || t.Year() > 2200 {
		return time.Time{}, false
	}
	return t, true
}

func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		return millisUTC(t)
	}
	return t.Format(time.RFC3339Nano)
}

// millisUTC is t.Format("2006-01-02T15:04:05.000Z") for a UTC time of
// years 1000 to 9999, written digit by digit: every record's time goes
// through it, and Format interprets its layout each time (TestMillisUTC).
func millisUTC(t time.Time) string {
	year, month, day := t.Date()
	if year < 1000 || year > 9999 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	hour, minute, sec := t.Clock()
	var b [24]byte
	two := func(i, v int) { b[i], b[i+1] = byte('0'+v/10), byte('0'+v%10) }
	two(0, year/100)
	two(2, year%100)
	b[4] = '-'
	two(5, int(month))
	b[7] = '-'
	two(8, day)
	b[10] = 'T'
	two(11, hour)
	b[13] = ':'
	two(14, minute)
	b[16] = ':'
	two(17, sec)
	ms := t.Nanosecond() / int(time.Millisecond)
	b[19], b[20], b[21], b[22], b[23] = '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z'
	return string(b[:])
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

// bitset records which input lines were converted, for the leak check's
// second pass: one bit per line.
type bitset []uint64

func (b *bitset) set(n int) {
	for n/64 >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[n/64] |= 1 << (n % 64)
}

func (b bitset) has(n int) bool { return n/64 < len(b) && b[n/64]&(1<<(n%64)) != 0 }

// shapeHint says, for an input no converter claims, when it is JSON but
// not JSON Lines: a JSON array, or one object written over many lines.
// It names the shape only, never what the file holds.
func shapeHint(fsys fs.FS, path string) string {
	fh, err := openFile(fsys, path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(fh, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n\ufeff")
	first, _, _ := bytes.Cut(head, []byte("\n"))
	switch {
	case len(head) == 0:
		return ""
	case head[0] == '[':
		return "; it is a JSON array, not JSON Lines (one object per line): jq -c '.[]' FILE > FILE.jsonl"
	case head[0] == '{' && !jsonscan.Valid(bytes.TrimSpace(first)):
		// One line that is no whole object is a record cut short (a
		// session killed mid-write), not a document over many lines.
		if _, rest, _ := bytes.Cut(head, []byte("\n")); len(bytes.TrimSpace(rest)) == 0 {
			return "; its one line is not a whole JSON object (cut short?)"
		}
		return "; it looks like JSON written over many lines, not JSON Lines (one object per line): jq -c . FILE > FILE.jsonl"
	}
	return ""
}
