package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// SummarySchemaID names the shape of convert run --json
// (schemas/run-summary.schema.json).
const SummarySchemaID = "convert.run-summary.v1"

// summary is the run summary: the closing table and --json both print it.
type summary struct {
	Schema       string           `json:"schema"`
	Version      string           `json:"version"`
	ExitCode     int              `json:"exit_code"`
	Status       string           `json:"status"` // ok, failed, leak, schema, interrupted
	Out          string           `json:"out"`
	ElapsedMS    int64            `json:"elapsed_ms"`
	elapsed      time.Duration    // the rate's: a run shorter than 1 ms has one too; the export's time taken off
	Inputs       int              `json:"inputs"`
	Converted    int              `json:"converted"`
	Unchanged    int              `json:"unchanged"`
	Empty        int              `json:"empty"`
	Overwritten  int              `json:"overwritten"`
	Failed       failedCounts     `json:"failed"`
	BytesRead    int64            `json:"bytes_read"`
	Events       int              `json:"events"`
	LinesSkipped skippedCounts    `json:"lines_skipped"`
	Converters   map[string]int   `json:"converters"`
	Tokens       tokenCounts      `json:"tokens"`
	Export       *exportSummary   `json:"export"`
	Failures     []string         `json:"failures"`
	interrupted  bool             // not in the JSON: Status says it
	skipReasons  map[string]int64 // sorted into LinesSkipped
}

type failedCounts struct {
	Total       int `json:"total"`
	Input       int `json:"input"`
	Leak        int `json:"leak"`
	Schema      int `json:"schema"`
	Interrupted int `json:"interrupted"`
}

type skippedCounts struct {
	Total   int64            `json:"total"`
	Reasons map[string]int64 `json:"reasons"`
}

// tokenCounts are the run's tokens in the one token model (internal/usage),
// under the names `convert report` uses: input never holds the cache, and
// a response seen in several sessions counts once (duplicate_responses
// says how many copies were folded).
type tokenCounts struct {
	Input              int64 `json:"input"`
	Output             int64 `json:"output"`
	CacheRead          int64 `json:"cache_read"`
	CacheWrite         int64 `json:"cache_write"`
	Reasoning          int64 `json:"reasoning"`
	DuplicateResponses int   `json:"duplicate_responses"`
}

type exportSummary struct {
	Endpoint        string `json:"endpoint"`
	Protocol        string `json:"protocol"`
	Compression     string `json:"compression"`
	ElapsedMS       int64  `json:"elapsed_ms"`
	Exported        int    `json:"exported"`
	Spans           int    `json:"spans"`
	AlreadyExported int    `json:"already_exported"`
	Failed          int    `json:"failed"`
}

func newSummary(oc pipeline.Outcome, opt pipeline.RunOptions, interrupted bool) summary {
	s := summary{
		Schema: SummarySchemaID, Version: pipeline.Version, Out: opt.Out, ElapsedMS: oc.Elapsed.Milliseconds(), elapsed: oc.Elapsed,
		Inputs: oc.Inputs, Converted: oc.Converted, Unchanged: oc.Unchanged, Empty: oc.Empty, Overwritten: oc.Overwritten,
		Failed:    failedCounts{Input: oc.Failed, Leak: oc.Leaks, Schema: oc.SchemaErrors, Interrupted: oc.Interrupted},
		BytesRead: oc.Bytes, Events: oc.Events,
		LinesSkipped: skippedCounts{Total: oc.Skipped, Reasons: oc.SkipReasons},
		Converters:   oc.Converters,
		Tokens:       tokenCounts{oc.Tokens.Input, oc.Tokens.Output, oc.Tokens.CacheRead, oc.Tokens.CacheWrite, oc.Tokens.Reasoning, oc.DuplicateResponses},
		Failures:     oc.Failures, interrupted: interrupted,
	}
	s.Failed.Total = s.Failed.Input + s.Failed.Leak + s.Failed.Schema + s.Failed.Interrupted
	if s.Failures == nil {
		s.Failures = []string{}
	}
	if s.Converters == nil {
		s.Converters = map[string]int{}
	}
	if s.LinesSkipped.Reasons == nil {
		s.LinesSkipped.Reasons = map[string]int64{}
	}
	if opt.ExportEndpoint != "" {
		s.Export = &exportSummary{Endpoint: opt.ExportEndpoint, Exported: oc.Exported, Spans: oc.ExportedSpans,
			AlreadyExported: oc.AlreadyExported, Failed: oc.ExportFailed}
	}
	switch {
	case interrupted:
		s.Status, s.ExitCode = "interrupted", exitInterrupted
	case oc.Leaks > 0:
		s.Status, s.ExitCode = "leak", exitLeak
	case oc.SchemaErrors > 0:
		s.Status, s.ExitCode = "schema", exitSchema
	case oc.Failed > 0 || oc.Interrupted > 0 || oc.ExportFailed > 0:
		s.Status, s.ExitCode = "failed", exitFailed
	default:
		s.Status, s.ExitCode = "ok", exitOK
	}
	return s
}

// setExport fills in what the exporter knows: the endpoint as messages
// show it (scheme, host and port), the protocol, and the time the run
// spent with an export in flight, which the conversion's time and rate
// leave out (an endpoint that is slow or down is not conversion speed).
func (s *summary) setExport(exp *export.Exporter, busy time.Duration) {
	if s.Export == nil {
		return
	}
	s.Export.Endpoint, s.Export.Protocol, s.Export.Compression = exp.Name(), exp.Protocol(), exp.Compression()
	s.Export.ElapsedMS = busy.Milliseconds()
	s.elapsed = max(s.elapsed-busy, time.Microsecond)
}

func printSummaryJSON(cons *console, s summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	cons.Data("%s", b)
	return nil
}

// printOutcome writes the closing table of a run (stderr; not under -q).
// Failures were printed once as they happened: the table counts them.
func printOutcome(cons *console, s summary) {
	el := fmtElapsed(s.ElapsedMS)
	if s.Export != nil && !s.interrupted {
		el = fmtElapsed(s.elapsed.Milliseconds())
	}
	if s.interrupted {
		cons.Error("convert: interrupted after %s: %s; nothing partial was written. "+
			"Run the same command again to continue (the inputs converted are skipped as unchanged).", el, interruptedCounts(s))
		return
	}
	var b strings.Builder
	// An empty file is no input to convert: it is counted apart, so "N of
	// M" is all converted when nothing failed.
	b.WriteString(cons.Bold(fmt.Sprintf("convert: %d of %d inputs converted in %s", s.Converted, s.Inputs-s.Empty, el)))
	if s.Empty > 0 {
		fmt.Fprintf(&b, " (%s skipped)", plural(s.Empty, "empty file"))
	}
	if s.Export != nil {
		fmt.Fprintf(&b, " (and %s exporting)", fmtElapsed(s.Export.ElapsedMS))
	}
	fmt.Fprintf(&b, "; outputs in %s\n", s.Out)
	row := func(k, v string) { fmt.Fprintf(&b, "  %-14s %s\n", k, v) }
	if len(s.Converters) > 0 {
		for i, l := range wrap(counts(s.Converters), 72) {
			if i == 0 {
				row("converters", l)
			} else {
				row("", l)
			}
		}
	}
	rate := ""
	if s.elapsed > 0 {
		r := float64(s.BytesRead) / (1 << 20) / s.elapsed.Seconds()
		rate = fmt.Sprintf(" (%.1f MiB/s)", r)
		if r < 10 {
			rate = fmt.Sprintf(" (%.2f MiB/s)", r)
		}
	}
	row("bytes read", pipeline.HumanBytes(s.BytesRead)+rate)
	row("events", fmt.Sprint(s.Events))
	if t := s.Tokens; t.Input+t.Output+t.CacheRead+t.CacheWrite > 0 {
		line := fmt.Sprintf("input %s, output %s, cache read %s, cache write %s",
			thousands(t.Input), thousands(t.Output), thousands(t.CacheRead), thousands(t.CacheWrite))
		if t.Reasoning > 0 {
			line += fmt.Sprintf(", reasoning %s", thousands(t.Reasoning))
		}
		if t.DuplicateResponses > 0 {
			line += fmt.Sprintf(" (%s repeated by resumed or forked sessions counted once)", map[bool]string{true: "1 response", false: thousands(int64(t.DuplicateResponses)) + " responses"}[t.DuplicateResponses == 1])
		}
		row("tokens", line)
	}
	skipped := fmt.Sprint(s.LinesSkipped.Total)
	if len(s.LinesSkipped.Reasons) > 0 {
		skipped += " (" + counts64(s.LinesSkipped.Reasons) + ")"
	}
	row("lines skipped", skipped)
	if s.Unchanged > 0 {
		row("unchanged", fmt.Sprintf("%d (not converted again; --force converts them)", s.Unchanged))
	}
	if s.Empty > 0 {
		row("empty files", fmt.Sprintf("%d (skipped)", s.Empty))
	}
	if s.Overwritten > 0 {
		row("overwritten", fmt.Sprintf("%d outputs of another input with the same name (see above)", s.Overwritten))
	}
	if f := s.Failed; f.Total > 0 {
		parts := map[string]int{"input": f.Input, "leak": f.Leak, "schema": f.Schema, "interrupted": f.Interrupted}
		row("failed", fmt.Sprintf("%d (%s; each shown above)", f.Total, counts(parts)))
	}
	cons.Info("%s", strings.TrimSuffix(b.String(), "\n"))
	if e := s.Export; e != nil {
		if e.Exported > 0 || e.Failed == 0 {
			msg := fmt.Sprintf("convert: exported %s (%s) to %s over %s", plural(e.Exported, "trace"), plural(e.Spans, "span"), e.Endpoint, e.Protocol)
			if e.Compression == export.CompressionGzip {
				msg += " (gzip)"
			}
			if e.AlreadyExported > 0 {
				msg += fmt.Sprintf("; %d it already had were not sent again (--reexport sends them)", e.AlreadyExported)
			}
			cons.Info("%s", msg)
		}
		if e.Failed > 0 {
			cons.Error("convert: %d of %s not exported to %s: the first failure is above, and after it no other was tried; their files were written, and the next run sends them", e.Failed, plural(e.Failed+e.Exported, "trace"), e.Endpoint)
		}
	}
}

// interruptedCounts says where every input of an interrupted run went,
// so the parts add up to the inputs: converted, unchanged, empty, failed
// (before the interruption) and not converted.
//
//	166 of 352 inputs converted, 2 unchanged, 1 empty, 183 not converted
func interruptedCounts(s summary) string {
	failed := s.Failed.Total - s.Failed.Interrupted
	left := s.Inputs - s.Converted - s.Unchanged - s.Empty - failed
	parts := []string{fmt.Sprintf("%d of %d inputs converted", s.Converted, s.Inputs)}
	for _, p := range []struct {
		n    int
		what string
	}{{s.Unchanged, "unchanged"}, {s.Empty, "empty"}, {failed, "failed"}, {left, "not converted"}} {
		if p.n > 0 || p.what == "not converted" {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// wrap breaks a ", "-separated list into lines of at most width bytes.
func wrap(list string, width int) []string {
	var lines []string
	cur := ""
	for _, item := range strings.Split(list, ", ") {
		switch {
		case cur == "":
			cur = item
		case len(cur)+2+len(item) > width:
			lines = append(lines, cur+",")
			cur = item
		default:
			cur += ", " + item
		}
	}
	return append(lines, cur)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// counts renders nonzero counts as "a 1, b 2", sorted by name.
func counts(m map[string]int) string {
	var rs []string
	for k, v := range m {
		if v > 0 {
			rs = append(rs, fmt.Sprintf("%s %d", k, v))
		}
	}
	sort.Strings(rs)
	return strings.Join(rs, ", ")
}

func counts64(m map[string]int64) string {
	c := map[string]int{}
	for k, v := range m {
		c[k] = int(v)
	}
	return counts(c)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtElapsed(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}
