package pipeline

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
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Input is one file to convert: where it is, and its path relative to the
// argument it was found under (which the output layout mirrors).
type Input struct {
	Path       string
	Rel        string
	Companions []Companion // further files of the same session, read after Path
}

// Companion is a file converted as part of another input: a subagent
// transcript of a session, with its optional sidecar.
type Companion struct {
	Path string
	Rel  string // relative to the main file's directory, slash-separated
	Meta string // path of the sidecar .meta.json, "" when none
}

// inputSuffixes are the file endings a directory walk picks up.
var inputSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst"}

// Expand turns file and directory arguments into inputs. Directories are
// walked in sorted order; files are taken whatever their name. Two inputs
// that would write the same output are an error.
func Expand(args []string) ([]Input, error) {
	var ins []Input
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, openError(err))
		}
		if !st.IsDir() {
			ins = append(ins, Input{Path: a, Rel: filepath.Base(a), Companions: companionsOf(a)})
			continue
		}
		var found []Input
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !hasInputSuffix(p) {
				return nil
			}
			rel, err := filepath.Rel(a, p)
			if err != nil {
				return err
			}
			found = append(found, Input{Path: p, Rel: filepath.ToSlash(rel)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		ins = append(ins, group(found)...)
	}
	seen := map[string]string{}
	for _, in := range ins {
		o := OutputName(in.Rel, "")
		if prev, dup := seen[o]; dup {
			return nil, fmt.Errorf("%s and %s would write the same outputs; convert them in separate runs", prev, in.Path)
		}
		seen[o] = in.Path
	}
	return ins, nil
}

func hasInputSuffix(p string) bool {
	for _, s := range inputSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// OutputName maps an input's relative path to an output path: the input's
// extension (.jsonl, .ndjson, .json, .log, each optionally .gz or .zst)
// replaced by suffix.
func OutputName(rel, suffix string) string {
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".gz"), ".zst")
	for _, ext := range []string{".jsonl", ".ndjson", ".json", ".log"} {
		if strings.HasSuffix(rel, ext) && len(rel) > len(ext) {
			return rel[:len(rel)-len(ext)] + suffix
		}
	}
	return rel + suffix
}

// RunOptions are the settings of a batch.
type RunOptions struct {
	Options
	Out  string // output directory
	Jobs int    // parallel inputs; number of CPUs if <= 0
	// OTelFormat is "json" (default: one indented TracesData document,
	// X.otel.json) or "jsonl" (the OTLP file-exporter layout: one compact
	// TracesData per line, X.otel.jsonl).
	OTelFormat string
	// AfterWrite, when set, runs for each input whose outputs were written
	// (an OTLP export, say); an error fails that input. It may run on
	// several goroutines at once.
	AfterWrite func(ctx context.Context, in Input, res *Result) error
	// Force converts every input, even those the manifest shows unchanged.
	Force bool
	// Progress, when set (a terminal), shows files, bytes, MB/s and ETA.
	Progress io.Writer
}

// Outcome sums up a batch: the exit code and the closing table come from it.
type Outcome struct {
	Inputs, Converted, Unchanged, Failed, Leaks, SchemaErrors, Interrupted int
	Events                                                                 int
	Bytes, Skipped                                                         int64
	SkipReasons                                                            map[string]int64
	Failures                                                               []string // first line of each failure, in input order
}

// Run converts every input with bounded parallelism and writes the outputs
// of each one that passes. Messages go to stderr in input order, whatever the
// scheduling, so runs are reproducible. Inputs the manifest shows unchanged
// are skipped unless Force; a cancelled ctx stops the batch cleanly (inputs
// not finished are reported, no partial file is left).
func Run(ctx context.Context, ins []Input, opt RunOptions, stderr io.Writer) Outcome {
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	oc := Outcome{Inputs: len(ins), SkipReasons: map[string]int64{}}
	man := loadManifest(opt.Out)
	set := settings(opt)
	var prog *progress
	if opt.Progress != nil {
		var total int64
		for _, in := range ins {
			for _, p := range inputPaths(in) {
				if st, err := os.Stat(p); err == nil {
					total += st.Size()
				}
			}
		}
		prog = startProgress(opt.Progress, len(ins), total)
		opt.Options.Progress = &prog.bytes
	}
	results := make([]*Result, len(ins))
	var mu sync.Mutex
	next := 0
	flush := func() { // print finished results in input order
		for next < len(results) && results[next] != nil {
			report(results[next], stderr, &oc)
			results[next] = &Result{}
			next++
		}
	}
	var g errgroup.Group // not WithContext: one failed input must not stop the others
	g.SetLimit(jobs)
	for i, in := range ins {
		g.Go(func() error {
			res := convertOne(ctx, in, opt, man, set)
			if prog != nil {
				prog.done.Add(1)
			}
			mu.Lock()
			results[i] = &res
			flush()
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	if prog != nil {
		prog.end()
	}
	if opt.Out != "" && oc.Converted > 0 {
		if err := man.save(); err != nil {
			fmt.Fprintf(stderr, "convert: manifest not saved (next run converts everything again): %v\n", err)
		}
	}
	return oc
}

// convertOne converts, writes and records one input. The result keeps only
// what the report needs: the outputs' bytes are released once written.
func convertOne(ctx context.Context, in Input, opt RunOptions, man *manifest, set string) Result {
	if err := ctx.Err(); err != nil {
		return Result{Path: in.Path, Rel: in.Rel, Err: &InputError{Path: in.Path, Msg: "not converted: interrupted"}}
	}
	base := OutputName(in.Rel, "")
	outs := []string{base + ".receipt.ndjson", base + traceSuffix(opt.OTelFormat)} // relative to opt.Out
	if !opt.Force && man.unchanged(in, set, outs) {
		return Result{Path: in.Path, Rel: in.Rel, Unchanged: true}
	}
	res := ConvertContext(ctx, in, opt.Options)
	if res.Err == nil && opt.OTelFormat == "jsonl" {
		res.Trace, res.Err = compactJSON(res.Trace)
	}
	if res.Err == nil {
		res.Err = write(opt.Out, in.Rel, res.Receipt, res.Trace, traceSuffix(opt.OTelFormat))
	}
	if res.Err == nil && opt.AfterWrite != nil {
		res.Err = opt.AfterWrite(ctx, in, &res)
	}
	if res.Err == nil {
		man.record(in, set, outs, res.Files)
	}
	res.Receipt, res.Trace = nil, nil
	return res
}

func report(r *Result, stderr io.Writer, oc *Outcome) {
	if r.Unchanged {
		oc.Unchanged++
		return
	}
	for _, d := range r.Diags {
		fmt.Fprintln(stderr, d)
	}
	if extra := r.Stats.Skipped - int64(len(r.Diags)); r.Err == nil && extra > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d more skipped lines not shown (counted in the summary)\n", r.Path, r.Converter, extra)
	}
	oc.Skipped += r.Stats.Skipped
	oc.Bytes += r.Stats.Bytes
	for k, v := range r.Stats.SkipReasons {
		oc.SkipReasons[k] += v
	}
	if r.Err == nil {
		oc.Converted++
		oc.Events += r.Stats.Events
		return
	}
	fmt.Fprintln(stderr, r.Err)
	msg := r.Err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	oc.Failures = append(oc.Failures, msg)
	var le *LeakError
	var se *SchemaError
	var ie *InputError
	switch {
	case errors.As(r.Err, &le):
		oc.Leaks++
	case errors.As(r.Err, &se):
		oc.SchemaErrors++
	case errors.As(r.Err, &ie) && (ie.Msg == "interrupted" || ie.Msg == "not converted: interrupted"):
		oc.Interrupted++
	default:
		oc.Failed++
	}
}

// write puts both outputs in place through temporary files and renames, so
// a reader never sees a partial file and a failure leaves none behind.
func write(dir, rel string, rec, trace []byte, traceExt string) error {
	base := filepath.Join(dir, filepath.FromSlash(OutputName(rel, "")))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("%s: %w", base, err)
	}
	files := []struct {
		path string
		data []byte
	}{{base + ".receipt.ndjson", rec}, {base + traceExt, trace}}
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	for _, f := range files {
		t, err := writeTemp(f.path, f.data)
		if err != nil {
			return err
		}
		temps = append(temps, t)
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.path); err != nil {
			for _, done := range files[:i] { // no receipt without its trace
				os.Remove(done.path)
			}
			return fmt.Errorf("%s: %w", f.path, err)
		}
		temps[i] = ""
	}
	return nil
}

func writeTemp(path string, data []byte) (string, error) {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	// CreateTemp makes the file private; receipts are made to be shared.
	if err := fh.Chmod(0o644); err != nil {
		fh.Close()
		os.Remove(fh.Name())
		return "", fmt.Errorf("%s: %w", path, err)
	}
	_, werr := fh.Write(data)
	cerr := fh.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(fh.Name())
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return fh.Name(), nil
}

func traceSuffix(format string) string {
	if format == "jsonl" {
		return ".otel.jsonl"
	}
	return ".otel.json"
}

// compactJSON turns the indented trace document into one line.
func compactJSON(doc []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
