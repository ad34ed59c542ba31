package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// terminal returns w when it is a terminal (progress is shown there) and
// nil otherwise: pipes, files and tests get no progress line.
func terminal(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return w
}

// printOutcome writes the closing table of a run.
func printOutcome(w io.Writer, oc pipeline.Outcome, out string) {
	fmt.Fprintf(w, "convert: %d of %d inputs converted", oc.Converted, oc.Inputs)
	if oc.Unchanged > 0 {
		fmt.Fprintf(w, ", %d unchanged since the last run (--force converts them again)", oc.Unchanged)
	}
	fmt.Fprintf(w, "; outputs in %s\n", out)
	row := func(k, v string) { fmt.Fprintf(w, "  %-14s %s\n", k, v) }
	row("bytes read", pipeline.HumanBytes(oc.Bytes))
	row("events", fmt.Sprint(oc.Events))
	skipped := fmt.Sprint(oc.Skipped)
	if len(oc.SkipReasons) > 0 {
		var rs []string
		for r, n := range oc.SkipReasons {
			rs = append(rs, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(rs)
		skipped += " (" + strings.Join(rs, ", ") + ")"
	}
	row("lines skipped", skipped)
	if n := oc.Failed + oc.Leaks + oc.SchemaErrors + oc.Interrupted; n > 0 {
		row("failed", fmt.Sprintf("%d (leak %d, schema %d, interrupted %d)", n, oc.Leaks, oc.SchemaErrors, oc.Interrupted))
		for _, f := range oc.Failures {
			fmt.Fprintf(w, "    %s\n", f)
		}
	}
}
