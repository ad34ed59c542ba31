package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	"golang.org/x/sync/errgroup"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/outname"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/usage"
)

// OutputName maps an input's relative path to an output path in plain
// mode: see OutputNameHashed.
func OutputName(rel, suffix string) string { return OutputNameHashed(receipt.Hasher{}, rel, suffix) }

// OutputNameHashed maps an input's relative path to an output path: the
// input's extension (.jsonl, .ndjson, .json, .log, each optionally .gz or
// .zst) replaced by suffix, every folder that names a working directory
// replaced by its ProjectDir and a file name that is not id-shaped by its
// InputFileName, both under h (keyed in keyed mode).
func OutputNameHashed(h receipt.Hasher, rel, suffix string) string {
	return outputName(h, rel, 0, suffix)
}

// OutputName is OutputNameHashed of the input's path, whose first Typed
// folders, the names the user typed, keep their names.
func (in Input) OutputName(h receipt.Hasher, suffix string) string {
	return outputName(h, in.Rel, in.Typed, suffix)
}

func outputName(h receipt.Hasher, rel string, typed int, suffix string) string {
	rel = privateDirs(h, strings.TrimSuffix(strings.TrimSuffix(rel, ".gz"), ".zst"), typed)
	dir, base := path.Split(rel)
	rel = dir + InputFileName(h, base)
	for _, ext := range []string{".jsonl", ".ndjson", ".json", ".log"} {
		if strings.HasSuffix(rel, ext) && len(rel) > len(ext) {
			return rel[:len(rel)-len(ext)] + suffix
		}
	}
	return rel + suffix
}

// InputFileName is outname.InputFileName: an input's file name as outputs
// carry it.
func InputFileName(h receipt.Hasher, base string) string { return outname.InputFileName(h, base) }

// IDShapedName is outname.IDShapedName: a file stem of the shapes agents
// name their session files with.
func IDShapedName(stem string) bool { return outname.IDShapedName(stem) }

// openCodeSession is outname.OpenCodeSession, the only shape a store's
// session ids name an output with (storeName).
const openCodeSession = outname.OpenCodeSession

// ProjectDir names the output folder of a folder that encodes a working
// directory: "project-" and the first 12 hex digits of its digest under h,
// a plain sha256 in plain mode and an HMAC under the key in keyed mode, so
// a guess list of user and project names cannot give it back from a
// keyed run's folders. `convert report --by project` keys its rows by the
// same name (ProjectOf), so a row can be found on disk.
func ProjectDir(h receipt.Hasher, dir string) string {
	_, hx, _ := strings.Cut(h.Text(dir), ":")
	return projectPrefix + hx[:12]
}

const projectPrefix = "project-"

// ProjectOf is the project of a log or an output at rel, relative to the
// folder it was found under: the ProjectDir name of its working-directory
// folder as OutputNameHashed writes it, whether rel is the log's path (an
// encoded working directory, Gemini CLI's digest of one) or its receipt's
// (already "project-<hex>"); "" when its path names none.
func ProjectOf(h receipt.Hasher, rel string) string {
	parts := strings.Split(path.Dir(OutputNameHashed(h, rel, "")), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if isProjectDir(parts[i]) {
			return parts[i]
		}
	}
	return ""
}

func isProjectDir(d string) bool {
	return len(d) == len(projectPrefix)+12 && strings.HasPrefix(d, projectPrefix) && isLowerHex(d[len(projectPrefix):])
}

// isDigestDir reports a folder named by a sha256 or sha1 in hex: Gemini
// CLI names each project's folder by the plain sha256 of its working
// directory, which the log holds too (projectHash) and a guess list
// reverses; OpenCode names it by the repository's first commit, which
// names a public repository as surely as its URL.
func isDigestDir(d string) bool { return (len(d) == 64 || len(d) == 40) && isLowerHex(d) }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// privateDirs names every folder of rel by one rule: a folder that
// encodes a working directory (Claude Code's "-Users-alice-src-ledger" or
// "-ledger", Cursor's "Users-alice", a Windows "c--Users-alice-Documents-x",
// Gemini CLI's sha256 of it) becomes its ProjectDir; a folder an agent's
// layout names the same on every machine (layoutDir: "subagents", a date's
// "2026", an id it made) stays; any other (an OpenClaw agent id, a folder
// of the user's inside the one given) becomes its FolderDir. Both digests
// are under h (keyed in keyed mode): output folders must not carry a user
// name, a project layout or a digest a guess list reverses. The same
// folder always gets the same name, so sessions of one project stay
// together, and every agent's project folders are named one way.
func privateDirs(h receipt.Hasher, rel string, typed int) string {
	parts := strings.Split(rel, "/")
	for i := min(typed, len(parts)-1); i < len(parts)-1; i++ {
		switch d := parts[i]; {
		case isProjectDir(d) || isFolderDir(d) || d == "." || d == "..":
		case encodedDir(d) || isDigestDir(d):
			parts[i] = ProjectDir(h, d)
		case !layoutDir(d):
			parts[i] = FolderDir(h, d)
		}
	}
	return strings.Join(parts, "/")
}

// FolderDir names an output folder for an input folder that is neither an
// agent's layout nor a working directory's: "dir-" and the first 12 hex
// digits of its digest under h.
func FolderDir(h receipt.Hasher, dir string) string {
	_, hx, _ := strings.Cut(h.Text(dir), ":")
	return folderPrefix + hx[:12]
}

const folderPrefix = "dir-"

func isFolderDir(d string) bool {
	return len(d) == len(folderPrefix)+12 && strings.HasPrefix(d, folderPrefix) && isLowerHex(d[len(folderPrefix):])
}

// layoutDir reports a folder name an agent's layout gives on every
// machine, which says nothing of its user: a word of a layout, a part of
// a date, or an id the agent made (IDShapedName).
//
//	projects, sessions, subagents, chats, main   layout words (main: OpenClaw's default agent)
//	2026, 03                                      a date's parts (Codex's sessions/2026/03/14)
//	7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b           a session's own folder
//	p0000003, run-0                               a pi subagent run's folders
//	wf_0a1b2c3d-4e5                               a Claude Code workflow run's (hex only)
//	claude-code, codex                            an agent's outputs in a default run
//	alice, acme-payroll, ops-bot                  not: a digest (FolderDir)
func layoutDir(d string) bool {
	if layoutWords[d] || len(d) <= 4 && digits(d) || layoutRunRe().MatchString(d) || IDShapedName(d) && !isLowerHex(d) {
		return true
	}
	_, ok := converters.Lookup(strings.ReplaceAll(d, "-", "_"))
	return ok // the folder a default run puts an agent's outputs in (claude-code/...)
}

var layoutWords = map[string]bool{
	"projects": true, "sessions": true, "subagents": true, "agents": true, "agent-transcripts": true, "tmp": true,
	"chats": true, "session-state": true, "workflows": true, "session": true, "message": true, "part": true,
	"todo": true, "subagent-artifacts": true, "storage": true, "opencode.db": true, "main": true, "global": true, "archive": true,
}

var layoutRunRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(p[0-9]{7}|run-[0-9]{1,4}|wf_[0-9a-f]{4,32}(-[0-9a-f]{1,32}){0,4})$`)
})

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// encodedDir reports a folder name that is a path with its separators
// turned into '-': Claude Code's and pi's (a leading '-', whatever the
// depth: "-ledger" is /ledger), a Windows one ("c--Users-alice-x": the
// drive, its ':' and '\' as "--"), Cursor's (no leading '-', from a
// root folder: "Users-alice", a session opened in the home folder).
func encodedDir(d string) bool {
	if strings.HasPrefix(d, "-") && len(d) > 1 {
		return true
	}
	if len(d) > 3 && isAlnum(d[0]) && d[1] == '-' && d[2] == '-' {
		return true // a Windows drive
	}
	for _, root := range []string{"Users-", "home-", "root-", "private-", "var-", "tmp-", "mnt-", "srv-", "opt-", "workspace-", "workspaces-", "c-Users-", "C-Users-", "Volumes-"} {
		if strings.HasPrefix(d, root) && len(d) > len(root) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// RunOptions are the settings of a batch.
type RunOptions struct {
	Options
	Out  string // output directory
	Jobs int    // parallel inputs; number of CPUs if <= 0
	// Manifest is Out's manifest read ahead (PrefetchManifest, under
	// Options.Hash); nil: Run reads it.
	Manifest *ManifestLoad
	// AfterWrite, when set, runs for each input whose outputs were written
	// (an OTLP export, say); an error is an export failure of that input
	// (its files stay, it counts as converted, not exported). It may run on
	// several goroutines at once.
	AfterWrite func(ctx context.Context, in Input, res *Result) error
	// ExportEndpoint names where AfterWrite sends traces (no credentials):
	// the manifest records each trace sent there, so a rerun does not send
	// it again unless Reexport.
	ExportEndpoint string
	Reexport       bool
	// Force converts every input, even those the manifest shows unchanged.
	Force bool
	// Converting, when set, is called as each input's conversion starts,
	// with its size on disk (main file and companions), and the function
	// it returns when the conversion is done: cmd/convert's memory limit
	// follows the inputs being converted. It may run on several goroutines.
	Converting func(size int64) (done func())
	// Progress, when set (a terminal), is called about 4 times a second
	// with a status line (files, MiB, MiB/s, ETA), and with "" at the end.
	Progress func(status string)
	// Messages, when set, receives every message instead of stderr, in
	// input order: skipped-line warnings, notes and failures (each once).
	Messages func(Message)
}

// MessageKind tells a command how to show a message (-q keeps failures).
type MessageKind int

const (
	Warning MessageKind = iota // a skipped line, an overwritten output
	Failure                    // an input failed (or its export did)
)

// Message is one line for stderr, already screened by the leak check.
type Message struct {
	Kind MessageKind
	Text string
}

// ErrExportSkipped marks an export not attempted because the endpoint
// refused an earlier one in the same run (the exporter fails fast).
var ErrExportSkipped = errors.New("not sent: the endpoint failed an earlier export in this run")

// Outcome sums up a batch: the exit code, the closing table and the --json
// summary come from it.
type Outcome struct {
	Inputs, Converted, Unchanged, Failed, Leaks, SchemaErrors, Interrupted int
	Empty                                                                  int // blank or empty files, skipped
	Events                                                                 int
	Bytes, Skipped                                                         int64
	SkipReasons                                                            map[string]int64
	Failures                                                               []string // first line of each failure, in input order
	// Converters counts the inputs converted per converter.
	Converters map[string]int
	// Tokens sums the gen_ai.token_usage.summarized events of the receipts
	// written, in the one token model (internal/usage): input without the
	// cache, and each response counted once across sessions.
	Tokens Tokens
	// DuplicateResponses counts the copies of responses seen in more than
	// one session (resumed and forked sessions) that Tokens counts once.
	DuplicateResponses int
	// Exported and ExportFailed count traces sent (and refused) this run;
	// AlreadyExported those the manifest shows the endpoint already has.
	Exported, ExportFailed, AlreadyExported int
	ExportedSpans                           int
	Overwritten                             int // outputs of another input with the same name replaced
	Elapsed                                 time.Duration

	fold usage.Fold
}

// Tokens are token counts from the receipts, in the one token model.
type Tokens = usage.Tokens

// done is what a finished input leaves for the report.
type done struct {
	res       Result
	empty     bool
	exportErr error
	exported  bool
	already   bool // unchanged and already exported to the endpoint
	spans     int
	tokens    Tokens
	responses []usage.Response // the trace's responses, for the fold across sessions
	notes     []string
}

// Run converts every input with bounded parallelism and writes the outputs
// of each one that passes. Messages go to stderr (or opt.Messages) in input
// order, whatever the scheduling, so runs are reproducible. Inputs the
// manifest shows unchanged are skipped unless Force; a cancelled ctx stops
// the batch cleanly (inputs not finished are counted as interrupted, and
// not reported one by one; no partial file is left).
func Run(ctx context.Context, ins []Input, opt RunOptions, stderr io.Writer) Outcome {
	began := time.Now()
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	if opt.Messages == nil {
		opt.Messages = func(m Message) { fmt.Fprintln(stderr, m.Text) }
	}
	oc := Outcome{Inputs: len(ins), SkipReasons: map[string]int64{}, Converters: map[string]int{}}
	man := opt.Manifest.take(opt.Out)
	if man == nil {
		man = loadManifest(opt.Out, opt.Hash)
	}
	set := settings(opt)
	var prog *progress
	if opt.Progress != nil {
		var total int64
		for _, in := range ins {
			total += in.size()
		}
		prog = startProgress(opt.Progress, len(ins), total)
		opt.Options.Progress = &prog.bytes
	}
	results := make([]*done, len(ins))
	var mu sync.Mutex
	next := 0
	flush := func() { // print finished results in input order
		for next < len(results) && results[next] != nil {
			report(ctx, results[next], opt.Messages, &oc)
			results[next] = &done{}
			next++
		}
	}
	// jobs workers take the inputs in order, not one goroutine per input
	// waiting for a free slot: that wakes a sleeping launcher per input,
	// a futex call that on a VM can cost more than converting a small
	// session's first lines.
	finished := func(i int, d done) {
		if prog != nil {
			prog.done.Add(1)
		}
		mu.Lock()
		results[i] = &d
		flush()
		mu.Unlock()
	}
	var g errgroup.Group // not WithContext: one failed input must not stop the others
	var taken atomic.Int64
	for range min(jobs, len(ins)) {
		g.Go(func() error {
			w := newPublisher(ctx, opt, man, set, finished)
			defer w.close()
			for {
				i := int(taken.Add(1) - 1)
				if i >= len(ins) {
					return nil
				}
				d, pub := convertOne(ctx, ins[i], opt, man, set)
				if pub == nil {
					finished(i, d)
					continue
				}
				pub.index, pub.d = i, d
				w.publish(pub)
			}
		})
	}
	_ = g.Wait()
	if prog != nil {
		prog.end()
	}
	if opt.Out != "" && (oc.Converted > 0 || oc.Exported > 0 || man.refreshed) {
		if err := man.save(); err != nil {
			opt.Messages(Message{Failure, fmt.Sprintf("convert: manifest not saved (next run converts everything again): %v", openError(err))})
		}
	}
	for _, rs := range oc.fold.Folded() {
		for _, r := range rs {
			oc.Tokens.Sub(r.Tokens)
		}
	}
	oc.DuplicateResponses = oc.fold.Duplicates()
	oc.fold = usage.Fold{}
	oc.Elapsed = time.Since(began)
	return oc
}

// convertOne converts one input. What is left to do, when it passed, is
// pub: write its outputs, export and record them (publishOne).
func convertOne(ctx context.Context, in Input, opt RunOptions, man *manifest, set string) (done, *published) {
	if err := ctx.Err(); err != nil {
		return done{res: Result{Path: in.Path, Rel: in.Rel, Err: &InputError{Path: in.Shown(), Msg: "not converted: interrupted", Err: ErrInterrupted}}}, nil
	}
	base := in.OutputName(opt.Hash, "")
	outs := []string{base + ".receipt.ndjson", base + TraceSuffix(opt.OTelFormat)} // relative to opt.Out
	if !opt.Force && man.unchanged(ctx, in, set, outs) {
		switch {
		case opt.AfterWrite == nil:
			return done{res: Result{Path: in.Path, Rel: in.Rel, Unchanged: true}}, nil
		case !opt.Reexport && man.exported(in.Rel, opt.ExportEndpoint):
			return done{res: Result{Path: in.Path, Rel: in.Rel, Unchanged: true}, already: true}, nil
		}
		// unchanged, but its trace is not at this endpoint yet: convert
		// again (same bytes) and send it
	}
	d := done{}
	if prev := man.madeFrom(in.Rel); prev != "" && prev != man.pathID(in.Path) {
		d.notes = append(d.notes, fmt.Sprintf("%s: replaces %s in %s, made from another input before (use another --out to keep both)",
			in.Shown(), path.Base(outs[0]), displayDir(opt.Out)))
	}
	end := func() {}
	if opt.Converting != nil {
		end = opt.Converting(in.size())
	}
	res := ConvertContext(ctx, in, opt.Options)
	end()
	// A blank file (real trees have them) is told once the conversion found
	// no record in it, not by opening every input a third time to look
	// first: on a filesystem where an open is slow, that costs more than
	// the check itself.
	if Empty(in, res) {
		return done{res: Result{Path: in.Path, Rel: in.Rel}, empty: true}, nil
	}
	if res.Err == nil && opt.Converter != "" && opt.Converter != "auto" && res.Stats.Known == 0 && res.Stats.Lines > res.Stats.Blank {
		res.Receipt, res.Trace = nil, nil
		res.Err = &InputError{Path: in.Shown(), Converter: res.Converter, Msg: fmt.Sprintf(
			"none of its %d lines is a %s record, nothing written (is --converter right? --converter auto detects the kind)",
			res.Stats.Lines-res.Stats.Blank, res.Converter)}
	}
	d.res = res
	if res.Err != nil {
		d.res.Receipt, d.res.Trace = nil, nil
		return d, nil
	}
	return d, &published{in: in, outs: outs}
}

// published is a converted input on its way out: its outputs to write,
// export and record, and where its result goes.
type published struct {
	in    Input
	outs  []string
	index int
	d     done // d.res holds the outputs until they are written
}

// publishOne writes, exports and records one converted input. The result
// keeps only what the report needs: the outputs' bytes are released once
// written.
func publishOne(ctx context.Context, p *published, opt RunOptions, man *manifest, set string) done {
	d, in := p.d, p.in
	res := d.res
	res.Err = write(opt.Out, in.OutputName(opt.Hash, ""), res.Receipt, res.Trace, TraceSuffix(opt.OTelFormat))
	var exports []manifestExport
	if res.Err == nil {
		d.tokens = receiptTokens(res.Receipt)
		for _, r := range res.Responses {
			if r.ID != "" { // only these can repeat in another session
				d.responses = append(d.responses, r)
			}
		}
		traceSum := sha256Hex(res.Trace)
		switch {
		case opt.AfterWrite == nil:
		case !opt.Reexport && man.took(in.Rel, opt.ExportEndpoint, traceSum):
			d.already = true // converted again (--force), same bytes: the endpoint has them
		default:
			d.spans = countSpans(res.Trace)
			d.exportErr = opt.AfterWrite(ctx, in, &res)
			if d.exportErr == nil {
				d.exported = true
				exports = append(exports, manifestExport{Endpoint: EndpointID(opt.Hash, opt.ExportEndpoint), Trace: traceSum})
			}
		}
		man.record(in, set, opt.Reveal, p.outs, res.Files, traceSum, exports)
	}
	res.Receipt, res.Trace = nil, nil
	d.res = res
	return d
}

// publisher publishes a worker's converted inputs on a goroutine of its
// own, one at a time, while the worker converts the next: creating and
// writing two files per input is mostly the kernel's time (a create on a
// VM can take 40 to 400 µs, and a history has thousands of inputs), and
// with it off the worker's path a worker's CPU goes to converting.
// A worker hands over an input only when its publisher is idle, so at
// most one input's outputs wait per worker; outputs larger than
// maxQueuedOutput are written by the worker itself, once its publisher is
// idle, so that memory does not hold two large sessions' outputs at once.
type publisher struct {
	ctx      context.Context
	opt      RunOptions
	man      *manifest
	set      string
	finished func(int, done)
	jobs     chan *published
	idle     chan struct{}
}

const maxQueuedOutput = 16 << 20

func newPublisher(ctx context.Context, opt RunOptions, man *manifest, set string, finished func(int, done)) *publisher {
	w := &publisher{ctx: ctx, opt: opt, man: man, set: set, finished: finished, jobs: make(chan *published), idle: make(chan struct{})}
	go func() {
		defer close(w.idle)
		for p := range w.jobs {
			if p == nil {
				continue // publish's barrier
			}
			w.finished(p.index, publishOne(w.ctx, p, w.opt, w.man, w.set))
		}
	}()
	return w
}

// publish hands p over, once the publisher is done with the last input
// (or publishes it here, when its outputs are large).
func (w *publisher) publish(p *published) {
	if len(p.d.res.Receipt)+len(p.d.res.Trace) > maxQueuedOutput {
		w.jobs <- nil // a barrier: taken when the publisher is idle
		w.finished(p.index, publishOne(w.ctx, p, w.opt, w.man, w.set))
		return
	}
	w.jobs <- p
}

// close waits until the last input handed over is published.
func (w *publisher) close() {
	close(w.jobs)
	<-w.idle
}

func displayDir(d string) string {
	if d == "" {
		return "."
	}
	return d
}

func report(ctx context.Context, d *done, msg func(Message), oc *Outcome) {
	r := &d.res
	if r.Unchanged {
		oc.Unchanged++
		if d.already {
			oc.AlreadyExported++
		}
		return
	}
	if d.empty {
		oc.Empty++
		return
	}
	for _, n := range d.notes {
		oc.Overwritten++
		msg(Message{Warning, n})
	}
	interrupted := errors.Is(r.Err, ErrInterrupted)
	if !interrupted {
		for _, dg := range r.Diags {
			msg(Message{Warning, dg})
		}
		if extra := r.Stats.Skipped - int64(len(r.Diags)); r.Err == nil && extra > 0 {
			msg(Message{Warning, fmt.Sprintf("%s: %s: %d more skipped lines not shown (counted in the summary)", r.Path, r.Converter, extra)})
		}
	}
	oc.Skipped += r.Stats.Skipped
	oc.Bytes += r.Stats.Bytes
	for k, v := range r.Stats.SkipReasons {
		oc.SkipReasons[k] += v
	}
	if r.Err == nil {
		if d.already {
			oc.AlreadyExported++
		}
		oc.Converted++
		oc.Converters[r.Converter]++
		oc.Events += r.Stats.Events
		oc.Tokens.Add(d.tokens)
		oc.fold.Add(oc.Converted, d.responses)
		switch {
		case d.exported:
			oc.Exported++
			oc.ExportedSpans += d.spans
		case d.exportErr != nil:
			oc.ExportFailed++
			if !errors.Is(d.exportErr, ErrExportSkipped) { // the first refusal says why; the rest are counted
				msg(Message{Failure, d.exportErr.Error()})
				oc.Failures = append(oc.Failures, firstLine(d.exportErr.Error()))
			}
		}
		return
	}
	if interrupted {
		oc.Interrupted++
		return
	}
	msg(Message{Failure, r.Err.Error()})
	oc.Failures = append(oc.Failures, firstLine(r.Err.Error()))
	var le *LeakError
	var se *SchemaError
	switch {
	case errors.As(r.Err, &le):
		oc.Leaks++
	case errors.As(r.Err, &se):
		oc.SchemaErrors++
	default:
		oc.Failed++
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// countSpans counts the spans of an OTLP/JSON document.
func countSpans(trace []byte) int {
	n := 0
	gjson.GetBytes(trace, "resourceSpans").ForEach(func(_, rs gjson.Result) bool {
		rs.Get("scopeSpans").ForEach(func(_, ss gjson.Result) bool {
			n += int(ss.Get("spans.#").Int())
			return true
		})
		return true
	})
	return n
}

// receiptTokens sums the token usage events of a receipt, in the one
// token model.
func receiptTokens(rec []byte) Tokens {
	var t Tokens
	marker := []byte(`"gen_ai.token_usage.summarized"`)
	for len(rec) > 0 {
		line := rec
		if i := bytes.IndexByte(rec, '\n'); i >= 0 {
			line, rec = rec[:i], rec[i+1:]
		} else {
			rec = nil
		}
		if !bytes.Contains(line, marker) || gjson.GetBytes(line, "name").Str != "gen_ai.token_usage.summarized" {
			continue
		}
		a := gjson.GetBytes(line, "attributes")
		_, u := usage.Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
		t.Add(u)
	}
	return t
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// write puts both outputs in place through temporary files and renames, so
// a reader never sees a partial file and a failure leaves none behind.
func write(dir, name string, rec, trace []byte, traceExt string) error {
	base := filepath.Join(dir, filepath.FromSlash(name))
	files := []struct {
		path string
		data []byte
	}{{base + ".receipt.ndjson", rec}, {base + traceExt, trace}}
	var temps []string
	defer func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		t, err := writeTemp(f.path, f.data)
		if errors.Is(err, fs.ErrNotExist) {
			// The folder is made on the first write into it, not checked
			// before every one: a history writes thousands of sessions
			// into a few hundred folders.
			if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
			t, err = writeTemp(f.path, f.data)
		}
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

// writeTemp writes data to a new temporary file beside path and returns its
// name. The file is made with its final mode in the one create (receipts are
// made to be shared: 0644, less what the user's umask takes away), not made
// private and changed after: one file-system operation fewer per output,
// of about 7,500 sessions' two outputs in a history. Its name is this
// process's own (pid and a counter), so the create needs no random retry;
// a name left by a crashed process of the same pid is skipped.
func writeTemp(path string, data []byte) (string, error) {
	dir, base := filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-"
	for {
		name := filepath.Join(dir, base+strconv.FormatUint(tempSeq.Add(1), 10))
		fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		_, werr := fh.Write(data)
		cerr := fh.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(name)
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return name, nil
	}
}

// tempSeq numbers the temporary outputs of this process.
var tempSeq atomic.Uint64

// TraceSuffix is the trace file's suffix in format (Options.OTelFormat).
func TraceSuffix(format string) string {
	if format == "json" {
		return ".otel.json"
	}
	return ".otel.jsonl"
}
