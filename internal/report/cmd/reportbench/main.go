// Command reportbench measures `convert report` over a history of receipts:
// it converts the bundled Claude Code and Codex samples once, writes
// -sessions copies of their receipts and traces (each with its own session
// id, trace id and day, spread over project folders), then times the
// report in each format. `make bench-report` runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	_ "github.com/contextreceipts/convert/converters/all"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/tidwall/gjson"
)

func main() {
	bin := flag.String("convert", "bin/convert", "the convert binary to time")
	n := flag.Int("sessions", 3000, "sessions in the generated history")
	dir := flag.String("dir", "", "where to write the history (default: a temporary folder, removed afterwards)")
	flag.Parse()
	if err := run(*bin, *n, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "reportbench:", err)
		os.Exit(1)
	}
}

type source struct {
	receipt, trace        []byte
	session, traceID, day string
}

func run(bin string, n int, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "convert-reportbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	var ins []pipeline.Input
	for _, d := range []string{"samples/claude_code", "samples/codex"} {
		found, err := pipeline.Expand([]string{d})
		if err != nil {
			return fmt.Errorf("%v (run it from the repository root)", err)
		}
		ins = append(ins, found...)
	}
	var srcs []source
	for _, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil {
			continue
		}
		first := gjson.ParseBytes(res.Receipt[:bytes.IndexByte(res.Receipt, '\n')])
		s := source{receipt: res.Receipt, trace: res.Trace, traceID: first.Get("trace_id").Str}
		for _, l := range bytes.Split(res.Receipt, []byte("\n")) {
			v := gjson.ParseBytes(l)
			if id := v.Get(`attributes.session\.id`).Str; id != "" && s.session == "" {
				s.session = id
			}
			if t := v.Get("time").Str; len(t) >= 10 && s.day == "" {
				s.day = t[:10]
			}
		}
		srcs = append(srcs, s)
	}
	if len(srcs) == 0 {
		return fmt.Errorf("no sample converted")
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var bytesWritten int64
	for i := range n {
		s := srcs[i%len(srcs)]
		day := start.AddDate(0, 0, i%180).Format("2006-01-02")
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		tid := fmt.Sprintf("%032x", i+1)
		rewrite := func(b []byte) []byte {
			out := string(b)
			if s.session != "" {
				out = strings.ReplaceAll(out, s.session, sid)
			}
			if s.traceID != "" {
				out = strings.ReplaceAll(out, s.traceID, tid)
			}
			if s.day != "" {
				out = strings.ReplaceAll(out, s.day, day)
			}
			return []byte(out)
		}
		base := filepath.Join(dir, fmt.Sprintf("project-%02d", i%40), sid)
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			return err
		}
		rec, tr := rewrite(s.receipt), rewrite(s.trace)
		if err := os.WriteFile(base+".receipt.ndjson", rec, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(base+".otel.json", tr, 0o644); err != nil {
			return err
		}
		bytesWritten += int64(len(rec) + len(tr))
	}
	fmt.Printf("history: %d sessions (%d sample shapes), %s of receipts and traces in %s\n", n, len(srcs), pipeline.HumanBytes(bytesWritten), dir)
	fmt.Printf("%-34s %8s %10s\n", "convert report", "seconds", "output")
	for _, args := range [][]string{{"--format", "table"}, {"--format", "json"}, {"--format", "markdown", "--by", "project"}, {"--format", "html"}} {
		cmd := exec.Command(bin, append(append([]string{"report"}, args...), dir)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s report %s: %v\n%s", bin, strings.Join(args, " "), err, errb.String())
		}
		fmt.Printf("%-34s %8.2f %10s\n", strings.Join(args, " "), time.Since(t0).Seconds(), pipeline.HumanBytes(int64(out.Len())))
	}
	return nil
}
