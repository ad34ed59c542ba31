package audit

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/internal/untrusted"
)

// ours checks a convert.receipt.v1 file: one event per line, the summary
// last, and the summary's accounting.
func ours(path string, docs []doc) []Finding {
	var fs []Finding
	add := func(line int, rule, format string, a ...any) {
		fs = append(fs, Finding{path, line, rule, fmt.Sprintf(format, a...)})
	}
	last := docs[len(docs)-1]
	sum := obj(last.v, "attributes")
	if str(last.v, "name") != "convert.summary" || sum == nil {
		add(last.line, RuleSummaryLast, "the last line is not convert.summary")
		sum = map[string]any{}
	}
	conv := str(sum, "convert.converter")
	trace := str(docs[0].v, "trace_id")
	for _, d := range docs {
		if s := str(d.v, "schema"); s != "convert.receipt.v1" {
			add(d.line, RuleSchema, "schema is not convert.receipt.v1")
		}
		if d.line != last.line && str(d.v, "name") == "convert.summary" {
			add(d.line, RuleSummaryLast, "convert.summary before the last line")
		}
		if c := str(d.v, "converter"); conv != "" && c != conv {
			add(d.line, RuleConverter, "converter differs from the summary's convert.converter %s", shown(conv))
		}
		if str(d.v, "trace_id") != trace {
			add(d.line, RuleTraceID, "trace_id differs from line %d's", docs[0].line)
		}
	}
	if len(fs) > 0 && str(last.v, "name") != "convert.summary" {
		return fs
	}
	l := last.line
	if n, ok := num(sum, "convert.output.events"); !ok || n != int64(len(docs)-1) {
		add(l, RuleEventCount, "convert.output.events is %s, the receipt has %d event lines", shown(numText(sum, "convert.output.events")), len(docs)-1)
	}
	lines, ok1 := num(sum, "convert.input.lines")
	recs, ok2 := num(sum, "convert.input.records")
	skipped, ok3 := num(sum, "convert.input.lines.skipped")
	blank, ok4 := num(sum, "convert.input.lines.blank")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		add(l, RuleLineAccounting, "the summary lacks convert.input.lines, .records, .lines.skipped or .lines.blank")
	} else if lines != recs+skipped+blank {
		add(l, RuleLineAccounting, "convert.input.lines %d != records %d + skipped %d + blank %d", lines, recs, skipped, blank)
	}
	var reasons int64
	for k := range sum {
		if strings.HasPrefix(k, "convert.input.skipped.") {
			n, _ := num(sum, k)
			reasons += n
		}
	}
	if ok3 && reasons != skipped {
		add(l, RuleSkipReasons, "skip reasons add up to %d, convert.input.lines.skipped is %d", reasons, skipped)
	}
	if s := str(sum, "convert.leak_check.status"); s != "passed" {
		add(l, RuleLeakCheck, "convert.leak_check.status is %q, not passed", shown(tokenOr(s)))
	}
	if !strings.HasPrefix(str(sum, "convert.input.sha256"), "sha256:") || !isDigest(str(sum, "convert.input.sha256")) {
		add(l, RuleInputDigest, "convert.input.sha256 is not sha256:<64 hex>")
	}
	return fs
}

func numText(m map[string]any, k string) string {
	if n, ok := num(m, k); ok {
		return fmt.Sprint(n)
	}
	return "missing"
}

// shown is a value read from a receipt as a finding may quote it: a
// receipt comes from anywhere, so only a value a written receipt could
// hold is quoted, anything else by its digest with a note.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return untrusted.Show(s)
	}
	return untrusted.Show(fmt.Sprint(v))
}

// tokenOr keeps short enum-like values and hides anything else.
func tokenOr(s string) string {
	if s == "" {
		return "missing"
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') || len(s) > 32 {
			return "(not an enum value)"
		}
	}
	return s
}
