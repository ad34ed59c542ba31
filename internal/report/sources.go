package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/untrusted"
	"github.com/contextreceipts/convert/internal/usage"
	"github.com/tidwall/gjson"
	"golang.org/x/sync/errgroup"
)

// LoadOptions say how PATHs become sessions.
type LoadOptions struct {
	Reveal      bool   // --reveal names, for the logs converted here
	OutReceipts string // also write the receipts and traces of converted logs here
	Jobs        int    // logs converted in parallel; one per CPU if <= 0
	Traces      bool   // keep traces (the html timelines need them)
	Stderr      io.Writer
	// Name, when set, is how messages name a file found under an argument
	// (see pipeline.NameInputs); nil: by its path.
	Name func(n int, arg, path string) string
}

// Loaded is what the PATHs gave.
type Loaded struct {
	Sessions []*Session
	Sources  Sources
	// Failed and Leaks count logs that did not convert; Unreadable,
	// receipts that could not be read. Their messages went to Stderr.
	// Empty counts the blank logs skipped, as convert run skips them
	// (pipeline.Empty): real trees have them, and they fail nothing.
	Failed, Leaks, Empty int
	converted            map[string][]string // converter -> every file read (for the report's leak check)
	reveal               bool                // they were converted with --reveal names (the check admits as they were written)
	// known holds every string of the receipts and traces converted here:
	// each passed the leak check of its own input when it was written.
	known map[string]bool
}

// Load reads receipt files and folders of them, and converts native logs
// and their folders through the pipeline (leak check included). A folder
// holding any *.receipt.ndjson is a folder of receipts; any other folder
// is walked for logs as `convert run` walks it.
func Load(ctx context.Context, args []string, opt LoadOptions) (*Loaded, error) {
	l := &Loaded{converted: map[string][]string{}, known: map[string]bool{}, reveal: opt.Reveal}
	var logs []string
	var recs []rec
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: no such file or directory", a)
		}
		if !st.IsDir() {
			switch {
			case strings.HasSuffix(a, ReceiptSuffix):
				recs = append(recs, rec{a, filepath.Base(a), a})
			case IsTrace(a):
				// read with its receipt
			default:
				logs = append(logs, a)
			}
			continue
		}
		var found []rec
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ReceiptSuffix) {
				rel, _ := filepath.Rel(a, p)
				found = append(found, rec{p, filepath.ToSlash(rel), a})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: cannot walk the folder", a)
		}
		if len(found) > 0 {
			recs = append(recs, found...)
		} else {
			logs = append(logs, a)
		}
	}
	if err := l.readReceipts(recs, opt); err != nil {
		return nil, err
	}
	if len(logs) == 0 && opt.Stderr != nil {
		// Options that act on logs converted here say so rather than
		// change nothing in silence.
		if opt.Reveal {
			fmt.Fprintln(opt.Stderr, "convert: report: --reveal names acts on logs converted here; receipts hold the names as they were written (convert run --reveal names writes them in clear)")
		}
		if opt.OutReceipts != "" {
			fmt.Fprintln(opt.Stderr, "convert: report: --out-receipts writes the receipts of logs converted here; only receipts were given, nothing written there")
		}
	}
	if len(logs) > 0 {
		// Without --out-receipts nothing is written, so two arguments may
		// hold files of the same relative name.
		groups := [][]string{logs}
		if opt.OutReceipts == "" {
			groups = nil
			for _, a := range logs {
				groups = append(groups, []string{a})
			}
		}
		var ins []pipeline.Input
		for _, g := range groups {
			found, err := pipeline.ExpandContext(ctx, g) // Ctrl-C stops a store's listing
			if err != nil {
				return nil, err
			}
			ins = append(ins, found...)
		}
		if opt.Name != nil {
			pipeline.NameInputs(ins, opt.Name)
		}
		if len(ins) == 0 {
			return nil, fmt.Errorf("no receipt (*%s) and no log (*.jsonl) found under %s", ReceiptSuffix, strings.Join(logs, " "))
		}
		l.convert(ctx, ins, opt)
	}
	l.fold(opt.Stderr)
	return l, nil
}

// fold keeps one session of each session id and input digest: the same
// receipt named twice (convert report R R), or kept in two layouts of an
// output folder, is one session. The first one read is kept; the copies
// are counted, and said in one line.
func (l *Loaded) fold(stderr io.Writer) {
	seen := map[[2]string]bool{}
	kept := l.Sessions[:0]
	for _, s := range l.Sessions {
		digest := ""
		if s.Summary != nil {
			digest = s.Summary.Str("convert.input.sha256")
		}
		k := [2]string{s.ID, digest}
		if digest != "" && seen[k] {
			l.Sources.DuplicateReceipts++
			continue
		}
		seen[k] = true
		kept = append(kept, s)
	}
	l.Sessions = kept
	if n := l.Sources.DuplicateReceipts; n > 0 && stderr != nil {
		fmt.Fprintf(stderr, "convert: report: %s read more than once (same session id and input digest) counted once\n", count(n, "session", "sessions"))
	}
}

// Report builds the report of what was loaded.
func (l *Loaded) Report(opt Options) *Report {
	r := Build(l.Sessions, opt)
	r.Sources.Receipts, r.Sources.Converted, r.Sources.Traces, r.Sources.Unreadable, r.Sources.DuplicateReceipts =
		l.Sources.Receipts, l.Sources.Converted, l.Sources.Traces, l.Sources.Unreadable, l.Sources.DuplicateReceipts
	return r
}

// maxMessages bounds the unreadable receipts named on stderr.
const maxMessages = 20

// rec is a receipt file, its path relative to its argument, and the argument.
type rec struct{ path, rel, arg string }

func (l *Loaded) readReceipts(recs []rec, opt LoadOptions) error {
	out := make([]*Session, len(recs))
	errs := make([]error, len(recs))
	var g errgroup.Group
	g.SetLimit(max(2, runtime.NumCPU()))
	for i, r := range recs {
		g.Go(func() error {
			name := r.path
			if opt.Name != nil {
				name = opt.Name(i+1, r.arg, r.path)
			}
			fh, err := os.Open(r.path)
			if err != nil {
				errs[i] = fmt.Errorf("%s: cannot open the receipt", name)
				return nil
			}
			defer fh.Close()
			s, err := ParseReceipt(name, r.rel, fh)
			if err != nil {
				errs[i] = err
				return nil
			}
			s.TracePath = TraceFor(r.path)
			if s.TracePath != "" {
				if b, err := os.ReadFile(s.TracePath); err == nil {
					s.Responses = usage.Responses(b)
				}
			}
			out[i] = s
			return nil
		})
	}
	_ = g.Wait()
	defer func() {
		if n := l.Sources.Unreadable - maxMessages; n > 0 {
			fmt.Fprintf(opt.Stderr, "convert: report: %d more unreadable receipts not shown\n", n)
		}
	}()
	for i := range recs {
		if errs[i] != nil {
			if l.Sources.Unreadable < maxMessages {
				fmt.Fprintln(opt.Stderr, "convert: report: "+errs[i].Error())
			}
			l.Sources.Unreadable++
			continue
		}
		l.Sessions = append(l.Sessions, out[i])
		l.Sources.Receipts++
		if out[i].TracePath != "" {
			l.Sources.Traces++
		}
	}
	return nil
}

// convert runs the logs through the pipeline: without OutReceipts nothing
// is written; with it, `convert run --out OutReceipts --force` is done.
func (l *Loaded) convert(ctx context.Context, ins []pipeline.Input, opt LoadOptions) {
	popt := pipeline.Options{Reveal: opt.Reveal}
	results := make([]*pipeline.Result, len(ins))
	responses := make([][]usage.Response, len(ins)) // read from each trace before it is let go
	if opt.OutReceipts != "" {
		l.convertWriting(ctx, ins, popt, opt, results, responses)
	} else {
		l.convertInMemory(ctx, ins, popt, opt, results, responses)
	}
	if l.Empty > 0 && opt.Stderr != nil {
		fmt.Fprintf(opt.Stderr, "convert: report: %s skipped, as convert run skips them\n", count(l.Empty, "empty log", "empty logs"))
	}
	for i, res := range results {
		if res != nil && res.Err == nil && res.Receipt != nil {
			l.keepConverted(ins[i], res, responses[i], opt)
		}
	}
}

// convertWriting is convert with OutReceipts: a run that writes, each
// result kept (its receipt and, with Traces, its trace copied) as it is
// written.
func (l *Loaded) convertWriting(ctx context.Context, ins []pipeline.Input, popt pipeline.Options, opt LoadOptions, results []*pipeline.Result, responses [][]usage.Response) {
	var mu sync.Mutex
	index := map[string]int{}
	for i, in := range ins {
		index[in.Path] = i
	}
	oc := pipeline.Run(ctx, ins, pipeline.RunOptions{Options: popt, Out: opt.OutReceipts, Jobs: opt.Jobs, Force: true,
		AfterWrite: func(_ context.Context, in pipeline.Input, res *pipeline.Result) error {
			keep := *res
			keep.Receipt = bytes.Clone(res.Receipt)
			if opt.Traces {
				keep.Trace = bytes.Clone(res.Trace)
			}
			rs := res.Responses
			mu.Lock()
			results[index[in.Path]] = &keep
			responses[index[in.Path]] = rs
			mu.Unlock()
			return nil
		}}, opt.Stderr)
	l.Leaks += oc.Leaks
	l.Failed += oc.Failed + oc.SchemaErrors + oc.Interrupted
	l.Empty += oc.Empty
}

// convertInMemory is convert without OutReceipts: every input converted
// in memory by Jobs workers, an empty log skipped and counted as run
// skips it, and each failure told on Stderr and counted.
func (l *Loaded) convertInMemory(ctx context.Context, ins []pipeline.Input, popt pipeline.Options, opt LoadOptions, results []*pipeline.Result, responses [][]usage.Response) {
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	empty := make([]bool, len(ins))
	var g errgroup.Group
	g.SetLimit(jobs)
	for i, in := range ins {
		g.Go(func() error {
			res := pipeline.ConvertContext(ctx, in, popt)
			if pipeline.Empty(in, res) {
				empty[i] = true // results[i] stays nil
				return nil
			}
			if res.Err == nil {
				responses[i] = res.Responses
			}
			if !opt.Traces {
				res.Trace = nil
			}
			results[i] = &res
			return nil
		})
	}
	_ = g.Wait()
	for i, res := range results {
		if empty[i] {
			l.Empty++
			continue
		}
		for _, d := range res.Diags {
			fmt.Fprintln(opt.Stderr, d)
		}
		if res.Err != nil {
			fmt.Fprintln(opt.Stderr, res.Err)
			var le *pipeline.LeakError
			if errors.As(res.Err, &le) {
				l.Leaks++
			} else {
				l.Failed++
			}
		}
	}
}

// keepConverted adds one converted input's session to l: its receipt
// parsed, its trace and responses, the strings it holds (for the report's
// own leak check) and the files it was read from.
func (l *Loaded) keepConverted(in pipeline.Input, res *pipeline.Result, responses []usage.Response, opt LoadOptions) {
	s, err := ParseReceipt(res.Path, in.Rel, bytes.NewReader(res.Receipt))
	if err != nil {
		fmt.Fprintln(opt.Stderr, "convert: report: "+err.Error())
		l.Failed++
		return
	}
	s.Trace = res.Trace
	s.Responses = responses
	collectStrings(res.Receipt, l.known)
	collectStrings(res.Trace, l.known)
	if s.Trace != nil {
		l.Sources.Traces++
	}
	l.Sessions = append(l.Sessions, s)
	l.Sources.Converted++
	files := []string{in.Path}
	for _, c := range in.Companions {
		files = append(files, c.Path)
		if c.Meta != "" {
			files = append(files, c.Meta)
		}
	}
	l.converted[res.Converter] = append(l.converted[res.Converter], files...)
}

// Finding is one string of the report that a converted log holds raw: the
// log (its file name, no folder), the input line, the report field that
// carries it, and what was found (never the string).
type Finding struct {
	Log   string
	Line  int
	Field string // the report's JSON path, indices left out: "groups.key"
	What  string
}

// String is the finding as messages print it: "x.jsonl:5: groups.key
// carries a raw input run of 9 bytes".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s carries a %s", f.Log, f.Line, f.Field, f.What)
}

// LeakCheck checks the report against every log converted in this run,
// with the leak check receipts pass: the report document holds every
// string any format prints, so it is what is checked. Only the report's
// untyped strings are probed, as `convert run` probes only what its typed
// outputs do not account for:
//   - a string the report copies from the receipts and traces of those logs
//     passed the check of its own log already and is exempt, as a
//     pass-through value is in a receipt (without that, a model name or
//     AGENTS.md from one session would be refused because another
//     session's prompt mentions it);
//   - a label the report computes is typed by the field it fills and its
//     shape (Report.typed: days, weeks and months it formatted, its own
//     words), and the document's keys are its schema's words;
//   - a time it formatted, a digest.
//
// Every other string is probed against each log, and a finding names the
// log and the field. No logs, no check.
func (l *Loaded) LeakCheck(r *Report) ([]Finding, error) {
	if len(l.converted) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		return nil, err
	}
	field := map[string]string{} // untyped string -> the first field holding it
	walkValues(gjson.ParseBytes(b.Bytes()), "", func(path, v string) {
		if l.known[v] || derived(v) || r.typed(path, v) {
			return
		}
		if _, ok := field[v]; !ok {
			field[v] = path
		}
	})
	fresh := make([]string, 0, len(field))
	for v := range field {
		fresh = append(fresh, v)
	}
	sort.Strings(fresh)
	// One string a line, so a finding's line says which string (and field).
	var doc bytes.Buffer
	for _, v := range fresh {
		line, err := json.Marshal([]string{v})
		if err != nil {
			return nil, err
		}
		doc.Write(line)
		doc.WriteByte('\n')
	}
	dir, err := os.MkdirTemp("", "convert-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "report.strings.ndjson")
	if err := os.WriteFile(path, doc.Bytes(), 0o600); err != nil {
		return nil, err
	}
	var findings []Finding
	convs := make([]string, 0, len(l.converted))
	for c := range l.converted {
		convs = append(convs, c)
	}
	sort.Strings(convs)
	for _, c := range convs {
		for _, log := range l.converted[c] {
			fs, err := pipeline.LeakCheckFiles([]string{log}, c, []string{path}, l.reveal)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				fd := "report"
				if i := f.Where.Index - 1; f.Where.Kind == gate.Line && i >= 0 && i < len(fresh) {
					fd = field[fresh[i]]
				}
				findings = append(findings, Finding{Log: filepath.Base(log), Line: f.Line, Field: fd, What: f.What})
			}
		}
	}
	return findings, nil
}

// walkValues calls fn with every string value of a JSON document and its
// path (object keys joined by dots, array indices left out). Keys are not
// visited: the report document has no map, so every key is a word of its
// schema.
func walkValues(v gjson.Result, path string, fn func(path, v string)) {
	switch {
	case v.Type == gjson.String:
		fn(path, v.Str)
	case v.IsArray():
		v.ForEach(func(_, e gjson.Result) bool {
			walkValues(e, path, fn)
			return true
		})
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			p := k.Str
			if path != "" {
				p = path + "." + k.Str
			}
			walkValues(e, p, fn)
			return true
		})
	}
}

// derived reports whether s is a value the report computes and that cannot
// carry input: a time it formatted from parsed times (as the pipeline leaves
// ids and unix times out of its index), or a digest.
func derived(s string) bool {
	if receipt.IsDigest(s) || untrusted.IsWithheld(s) {
		return true
	}
	_, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	return err == nil && len(s) == len("2006-01-02T15:04:05.000Z")
}

// collectStrings adds every key and string value of a JSON document, or of
// each line of an NDJSON file, to set.
func collectStrings(doc []byte, set map[string]bool) {
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			set[v.Str] = true
		case v.IsArray() || v.IsObject():
			v.ForEach(func(k, e gjson.Result) bool {
				if k.Type == gjson.String {
					set[k.Str] = true
				}
				walk(e)
				return true
			})
		}
	}
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && jsonscan.Valid(line) {
			walk(gjson.ParseBytes(line))
		}
	}
	if trimmed := bytes.TrimSpace(doc); bytes.IndexByte(trimmed, '\n') >= 0 && jsonscan.Valid(trimmed) {
		walk(gjson.ParseBytes(trimmed))
	}
}
