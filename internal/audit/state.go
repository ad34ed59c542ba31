package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// stateAssembly checks one seed 003 receipt. single says the file holds only
// this receipt, so Options.Context may apply to it.
func stateAssembly(path string, d doc, opt Options, single bool) []Finding {
	f := &findings{path: path, d: d}
	r := d.v
	out := obj(r, "output")
	asOf, asOfOK := parseTime(str(r, "as_of"))
	if str(r, "receipt_id") == "" || !asOfOK || out == nil || !isDigest(str(out, "context_hash")) {
		f.add(RuleStateAssemblyID, "receipt_id, as_of (RFC 3339) and output.context_hash (sha256) are required")
	}
	entries, _ := r["selected_entries"].([]any)
	keys := f.selectedEntries(entries, asOf, asOfOK)
	f.conflicts(entries, keys)
	f.asOfFallback(opt.AsOf, asOf, asOfOK)
	if out != nil {
		f.contextHash(out, opt, single)
	}
	return f.fs
}

// findings collects a receipt's findings: at the receipt's line (add) or
// at the line of its selected entry i (at).
type findings struct {
	path string
	d    doc
	fs   []Finding
}

func (f *findings) add(rule, format string, a ...any) {
	f.fs = append(f.fs, Finding{f.path, f.d.line, rule, fmt.Sprintf(format, a...)})
}

func (f *findings) at(i int, rule, format string, a ...any) {
	line := f.d.line
	if i < len(f.d.entries) {
		line = f.d.entries[i]
	}
	f.fs = append(f.fs, Finding{f.path, line, rule, fmt.Sprintf(format, a...)})
}

// selectedEntries checks each selected entry (stale, superseded or
// tombstoned) and returns the entries' indexes by fact_key.
func (f *findings) selectedEntries(entries []any, asOf time.Time, asOfOK bool) map[string][]int {
	r := f.d.v
	keys := map[string][]int{}
	for i, e := range entries {
		m, _ := e.(map[string]any)
		if m == nil {
			f.at(i, RuleStateAssemblyID, "selected_entries[%d] is not an object", i)
			continue
		}
		where := fmt.Sprintf("selected_entries[%d] (%s, rank %s)", i, entryType(m), shown(m["rank"]))
		if vt := str(m, "valid_to"); vt != "" && asOfOK {
			if t, ok := parseTime(vt); !ok {
				f.at(i, RuleStaleFact, "%s: valid_to is not an RFC 3339 time", where)
			} else if !t.After(asOf) {
				f.at(i, RuleStaleFact, "%s: valid_to %s is not after as_of %s, yet the entry was selected", where, shown(vt), shown(str(r, "as_of")))
			}
		}
		switch str(m, "supersession_status") {
		case "superseded":
			f.at(i, RuleSuperseded, "%s: supersession_status superseded, yet the entry was selected", where)
		case "tombstoned":
			f.at(i, RuleTombstoned, "%s: supersession_status tombstoned: a deleted memory was resurrected", where)
		}
		if k := str(m, "fact_key"); k != "" {
			keys[k] = append(keys[k], i)
		}
	}
	return keys
}

// conflicts finds the selected entries that share a fact_key with none
// marked conflict_status merged, in the order of their first entry.
func (f *findings) conflicts(entries []any, keys map[string][]int) {
	var groups [][]int
	for _, idx := range keys {
		if len(idx) < 2 {
			continue
		}
		merged := false
		for _, i := range idx {
			if m, _ := entries[i].(map[string]any); str(m, "conflict_status") == "merged" {
				merged = true
			}
		}
		if !merged {
			groups = append(groups, idx)
		}
	}
	sort.Slice(groups, func(a, b int) bool { return groups[a][0] < groups[b][0] })
	for _, idx := range groups {
		f.at(idx[len(idx)-1], RuleConflict, "selected_entries %s share a fact_key and none is marked conflict_status merged", indexList(idx))
	}
}

// asOfFallback checks that the receipt resolved against the as_of asked
// for (--as-of, else its requested_as_of), when one was.
func (f *findings) asOfFallback(asked string, asOf time.Time, asOfOK bool) {
	r := f.d.v
	want := asked
	if want == "" {
		want = str(r, "requested_as_of")
	}
	if want == "" {
		return
	}
	if t, ok := parseTime(want); !ok {
		f.add(RuleAsOfFallback, "the requested as_of is not an RFC 3339 time")
	} else if asOfOK && !t.Equal(asOf) {
		f.add(RuleAsOfFallback, "as_of %s was requested but the receipt resolved against %s", want, shown(str(r, "as_of")))
	}
}

// contextHash checks the delivered bytes (Options.Context for a file of
// one receipt, else its assembled_context) against output's hash and size.
func (f *findings) contextHash(out map[string]any, opt Options, single bool) {
	r := f.d.v
	delivered, have := []byte(nil), false
	if opt.Context != nil && single {
		delivered, have = opt.Context, true
	} else if s, ok := r["assembled_context"].(string); ok {
		delivered, have = []byte(s), true
	}
	if !have {
		return
	}
	sum := sha256.Sum256(delivered)
	got := hex.EncodeToString(sum[:])
	if want := strings.TrimPrefix(str(out, "context_hash"), "sha256:"); got != want {
		f.add(RuleContextHash, "the delivered bytes hash to sha256:%s, output.context_hash records %s", got, shown("sha256:"+want))
	}
	if n, ok := num(out, "context_size_bytes"); ok && n != int64(len(delivered)) {
		f.add(RuleContextHash, "%d bytes were delivered, output.context_size_bytes records %d", len(delivered), n)
	}
}

func entryType(m map[string]any) string {
	if t := str(m, "type"); t == "memory" || t == "episode" {
		return t
	}
	return "entry"
}

func indexList(idx []int) string {
	s := make([]string, len(idx))
	for i, n := range idx {
		s[i] = fmt.Sprintf("[%d]", n)
	}
	return strings.Join(s, ", ")
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// isDigest accepts sha256:<64 hex> or 64 bare hex digits.
func isDigest(s string) bool {
	h := strings.TrimPrefix(s, "sha256:")
	if len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
