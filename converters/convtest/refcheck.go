package convtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/fuzzgen"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// A naive reference of the leak check (internal/leak's package comment),
// quadratic and written from the rules, not from the code: a value at a
// pass-through path is admitted when its shape admits it and, at an id
// path, when it is one of the ids of the reader's agent, at a model path
// when the catalog or the reader's agent knows it (admitted); every
// other input string, key and number is raw. An untyped
// output string leaks when it equals a raw input string (ASCII case
// folded), or one of its untyped parts under 8 bytes does, or it contains
// a raw string of 8 to 15 bytes, or shares a run of 16 bytes with a longer
// one, or holds a secret-shaped token (a number-shaped string of fewer than
// 6 digits is a count, never one); an output number of 6+ digits leaks
// when it is a raw input integer, unless its writer computed it: every
// value noted at its key with its digits was built by receipt.Computed
// (pipeline.LeakCheckNoted; a copy, receipt.Copied, or a number noted nowhere is
// probed). checkReference plants a few strings
// chosen by the fuzzer's bytes (pieces of raw strings of every length,
// whole raw strings, values of pass-through fields, composites, our own
// words, junk, raw numbers) in an output and asserts both checks refuse
// the same ones.

// refInput is what the reference knows of the input.
type refInput struct {
	raw     []string        // every raw string, key and number literal
	num     []bool          // raw[i] is a number literal
	fielded []string        // every string at a pass-through path, admitted or raw
	pass    map[string]bool // admitted pass-through values and the file names
	ints    map[string]bool // digits of raw integers of 6+ digits
	intList []string        // the same, sorted
}

func newRefInput(c FuzzCase) refInput {
	in := refInput{pass: map[string]bool{}, ints: map[string]bool{}}
	for _, name := range sortedNames(c.Files) {
		in.pass[name], in.pass[name[strings.LastIndex(name, "/")+1:]] = true, true
		eachDoc(name, c.Files[name], func(doc []byte, _ int) {
			walkRaw(gjson.ParseBytes(doc), "", c.Conv.PassThrough, agentKnows(c.Conv), func(v string, kind rawKind) {
				in.raw, in.num = append(in.raw, v), append(in.num, kind == rawNumber)
				if kind == rawFielded {
					in.fielded = append(in.fielded, v)
				}
				// Output numbers are matched against raw numbers only (a
				// digit string is a raw string), as the package says.
				if d := strings.TrimPrefix(v, "-"); kind == rawNumber && len(d) >= 6 && allDigits(d) && !in.ints[d] {
					in.ints[d] = true
					in.intList = append(in.intList, d)
				}
			}, func(v string) { in.pass[v], in.fielded = true, append(in.fielded, v) })
		})
	}
	sort.Strings(in.intList)
	return in
}

type rawKind int

const (
	rawString rawKind = iota
	rawKey
	rawNumber
	rawFielded // a string at a pass-through path its rule does not admit
)

// agentKnows is what the reader of the agent conv reads knows of the
// values it writes: its Format's id grammar (empty when it declares none)
// and its own model names; nil for a converter of no agent (a scenario's).
func agentKnows(conv converters.Converter) *leak.Knowledge {
	if conv.Native == nil {
		return nil
	}
	return &leak.Knowledge{IDs: conv.Native.IDs, Models: conv.Native.Models}
}

// admitted is the rule of a pass-through value: the field's shape admits
// it (leak.Shape.Admit: its syntax, and no secret or personal data); a
// value of an id field is one of the agent's ids (know.IDs, its reader's
// grammar: the reader writes any other as its digest, so it is raw; an
// agent that declares none has none); a value of a model field is a name
// the model catalog knows (leak.KnownModel) or one the agent writes of its
// own (know.Models): the reader writes any other as its digest, for the
// fuzz targets convert without --reveal names. With know nil (a converter
// of no agent) an id goes by its shape alone, a model by the catalog.
func admitted(sh leak.Shape, v string, know *leak.Knowledge) bool {
	if know != nil && (sh == leak.ID || sh == leak.IDOrUUID) && !know.IDs.Match(v) {
		return false
	}
	if sh == leak.Model && !leak.KnownModel(v) && (know == nil || !slices.Contains(know.Models, v)) {
		return false
	}
	return sh.Admit(v)
}

// walkRaw calls raw on every raw string, key and number literal of v, and
// passed on every value admitted at its pass-through path (admitted, by
// know, what the reader knows).
func walkRaw(v gjson.Result, p string, pass leak.Paths, know *leak.Knowledge, raw func(v string, kind rawKind), passed func(string)) {
	switch {
	case v.Type == gjson.String:
		if sh := pass[p]; sh != leak.None && sh != leak.Count && admitted(sh, v.Str, know) {
			if passed != nil {
				passed(v.Str)
				// The server of an admitted "mcp__server__tool" name, and
				// the halves of a server_tool one, carry its provenance
				// (leak.Shape.Parts): written alone, or met raw elsewhere.
				for _, part := range sh.Parts(v.Str) {
					passed(part)
				}
			}
			return
		}
		kind := rawString
		if pass[p] != leak.None {
			kind = rawFielded
		}
		raw(v.Str, kind)
	case v.Type == gjson.Number:
		sh := pass[p]
		if sh == leak.None {
			sh = pass["*."+p[strings.LastIndex(p, ".")+1:]]
		}
		// A count in a count field, and any number a label or id field's
		// shape admits, is that field's value.
		if sh != leak.None && admitted(sh, v.Raw, know) {
			if passed != nil {
				passed(v.Raw)
			}
			return
		}
		raw(v.Raw, rawNumber)
	case v.IsArray():
		v.ForEach(func(_, e gjson.Result) bool { walkRaw(e, join(p, "#"), pass, know, raw, passed); return true })
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			raw(k.Str, rawKey)
			walkRaw(e, join(p, k.Str), pass, know, raw, passed)
			return true
		})
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var (
	refVocabOnce sync.Once
	refVocab     map[string]bool
	refWords     []string // sorted, for picking
)

func loadRefVocab(t testing.TB) {
	refVocabOnce.Do(func() {
		v := pipeline.Vocabulary()
		refVocab = v
		for w := range v {
			refWords = append(refWords, w)
		}
		sort.Strings(refWords)
	})
	if refVocab == nil {
		t.Fatal("no vocabulary")
	}
}

// refNumber: a decimal number literal, no Inf, NaN or hex, of fewer than
// 6 digits (a count: a longer number-shaped string is probed like text).
func refNumber(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err != nil || s == "" {
		return false
	}
	if strings.Trim(s, "0123456789.-+eE") != "" {
		return false
	}
	digits := 0
	for _, r := range s {
		if '0' <= r && r <= '9' {
			digits++
		}
	}
	return digits < 6
}

// refSplit splits at the separators composites are made of, keeping a
// digest whole.
func refSplit(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" =,;()[]\n\t\"", r) }) {
		f = strings.TrimRight(f, ":")
		if !strings.Contains(f, ":") || receipt.IsDigest(f) {
			out = append(out, f)
			continue
		}
		sub := strings.Split(f, ":")
		for i := 0; i < len(sub); i++ {
			if i+1 < len(sub) && receipt.IsDigest(sub[i]+":"+sub[i+1]) {
				out = append(out, sub[i]+":"+sub[i+1])
				i++
				continue
			}
			out = append(out, sub[i])
		}
	}
	return out
}

// refTyped: the parts can be read left to right as typed parts and runs
// of 2 to 8 parts whose bytes in s, separators included, are one
// pass-through value (a model "llama3:8b" split at its colon); tried
// every way, by recursion.
func refTyped(s string, parts []string, typed func(string) bool, pass map[string]bool) bool {
	if len(parts) == 0 {
		return false
	}
	var from func(i, cur int) bool
	from = func(i, cur int) bool {
		if i == len(parts) {
			return true
		}
		start := cur + strings.Index(s[cur:], parts[i])
		if typed(parts[i]) && from(i+1, start+len(parts[i])) {
			return true
		}
		end := start + len(parts[i])
		for j := i + 1; j < len(parts) && j < i+8; j++ {
			end += strings.Index(s[end:], parts[j]) + len(parts[j])
			if pass[s[start:end]] && from(j+1, end) {
				return true
			}
		}
		return false
	}
	return from(0, 0)
}

// wholeOrDotted: ok(p), or ok for every dotted segment of p.
func wholeOrDotted(p string, ok func(string) bool) bool {
	if ok(p) {
		return true
	}
	if !strings.Contains(p, ".") {
		return false
	}
	for _, s := range strings.Split(p, ".") {
		if !ok(s) {
			return false
		}
	}
	return true
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// refRefused decides one output string by the rules.
func refRefused(s string, in refInput) bool {
	own := func(w string) bool { return w == "" || refVocab[w] || receipt.IsDigest(w) || refNumber(w) }
	if own(s) {
		return false
	}
	parts := refSplit(s)
	ownAll := true
	for _, p := range parts {
		ownAll = ownAll && wholeOrDotted(p, own)
	}
	// Counts joined by separators with 6 digits or more in all
	// ("555 123 4567", "08:00:00.0") are a number: probed whole.
	digits, numbers := 0, true
	for _, p := range parts {
		numbers = numbers && wholeOrDotted(p, func(w string) bool { return w == "" || refNumber(w) })
	}
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			digits++
		}
	}
	digitRun := digits >= 6 && numbers
	if ownAll && !digitRun {
		return false
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil && !uuidRe.MatchString(s) && leak.SecretKind(s) != "" {
		return true
	}
	typed := func(p string) bool { return wholeOrDotted(p, func(w string) bool { return own(w) || in.pass[w] }) }
	if in.pass[s] {
		return false
	}
	if !digitRun && refTyped(s, parts, typed, in.pass) {
		return false
	}
	fs := asciiFold(s)
	short := map[string]bool{}
	if len(s) < 8 {
		short[fs] = true
	}
	for _, p := range parts {
		if len(p) < 8 && !typed(p) {
			short[asciiFold(p)] = true
		}
	}
	// A raw match counts only where it touches an open part: one that is
	// not a word of ours, a digest, a pass-through value or dots (numbers
	// are open); a digit run, or a string with no open part, is open whole.
	masked := func(p string) bool {
		return wholeOrDotted(p, func(w string) bool { return w == "" || refVocab[w] || receipt.IsDigest(w) || in.pass[w] })
	}
	open := make([]int, len(s)+1) // open[i]: open bytes in s[:i]
	mark := make([]bool, len(s))
	cur, any := 0, false
	for _, p := range parts {
		j := strings.Index(s[cur:], p)
		if j < 0 {
			break
		}
		if !masked(p) {
			for k := cur + j; k < cur+j+len(p); k++ {
				mark[k], any = true, true
			}
		}
		cur += j + len(p)
	}
	for i := 0; i < len(s); i++ { // bytes, not runes
		open[i+1] = open[i]
		if mark[i] || !any || len(parts) < 2 || digitRun {
			open[i+1]++
		}
	}
	touches := func(a, b int) bool { return open[b] > open[a] }
	return rawInside(s, fs, short, touches, in)
}

// rawInside reports whether a raw string of in is in s (folded fs) as the
// package counts it: equal to a short part, inside it at 8 bytes or more,
// or a run of 16 bytes, touching an open byte; a raw number inside a
// number-shaped s counts only whole.
func rawInside(s, fs string, short map[string]bool, touches func(a, b int) bool, in refInput) bool {
	numeric := refNumeric(s)
	for i, r := range in.raw {
		fr := asciiFold(r)
		switch {
		case len(r) == 0:
		case in.num[i] && numeric:
			// A raw number inside a number-shaped output (a count that
			// happens to hold its digits) is no copy: only the whole.
			if fs == fr {
				return true
			}
		case len(r) < 8:
			if short[fr] {
				return true
			}
		case len(r) < 16:
			for at := 0; ; at++ {
				k := strings.Index(fs[at:], fr)
				if k < 0 {
					break
				}
				if at += k; touches(at, at+len(fr)) {
					return true
				}
			}
		default:
			if commonRunTouching(fs, fr, touches) {
				return true
			}
		}
	}
	return false
}

// refNumeric reports a string a number's text could be: only digits,
// signs, dots and exponents, and it parses as one.
func refNumeric(s string) bool {
	if s == "" || strings.Trim(s, "0123456789.-+eE") != "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// commonRunTouching reports a common substring of 16 or more bytes of a and
// b that touches an open byte of a: quadratic.
func commonRunTouching(a, b string, touches func(from, to int) bool) bool {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cur[j] = 0
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			}
			// the run ending here at its longest: [i-cur[j], i)
			if cur[j] >= 16 && (i == len(a) || j == len(b) || a[i] != b[j]) && touches(i-cur[j], i) {
				return true
			}
		}
		prev, cur = cur, prev
	}
	return false
}

func asciiFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c | 0x20
		}
	}
	return string(b)
}

// checkReference plants strings in an output and compares the real check
// with the reference on which are refused. Inputs over 64 KiB are skipped:
// the reference is quadratic.
func checkReference(t testing.TB, c FuzzCase, ch *fuzzgen.Choices) {
	t.Helper()
	size := 0
	for _, b := range c.Files {
		size += len(b)
	}
	if size > 64<<10 {
		return
	}
	loadRefVocab(t)
	in := newRefInput(c)
	var plants []any
	for i, n := 0, 1+ch.Intn(6); i < n; i++ {
		p := refPlant(in, ch)
		if s, ok := p.(string); ok { // as an output carries it: invalid UTF-8 becomes U+FFFD
			b, _ := json.Marshal(s)
			p = gjson.ParseBytes(b).Str
		}
		plants = append(plants, p)
	}
	var doc strings.Builder
	for _, p := range plants {
		b, _ := json.Marshal(map[string]any{"p": p})
		doc.Write(b)
		doc.WriteByte('\n')
	}
	notes, computed, copied := refNotes(plants, ch)
	chk, err := pipeline.LeakCheckNoted(c.Files, c.Conv.Name, map[string][]byte{"ref.ndjson": []byte(doc.String())}, notes)
	if err != nil {
		t.Fatal(err)
	}
	real := map[string]bool{}
	for _, fd := range chk.Findings() {
		real[fd.Where.String()] = true
	}
	// The outputs as leak.Outputs sees them: each line's key, then its
	// value; a string seen before is not added again.
	ref := map[string]bool{}
	seen := map[string]bool{}
	nums := map[string]bool{}
	for i, p := range plants {
		where := "ref.ndjson line " + strconv.Itoa(i+1)
		strs := []string{"p"}
		if s, ok := p.(string); ok {
			strs = append(strs, s)
		} else if lit := strings.TrimPrefix(fmt.Sprint(p), "-"); len(lit) >= 6 && allDigits(lit) && !nums[lit] {
			nums[lit] = true
			if refNumberLeaks(lit, in, computed, copied) {
				ref[where] = true
			}
		}
		for _, s := range strs {
			if !seen[s] {
				seen[s] = true
				if refRefused(s, in) {
					ref[where] = true
				}
			}
		}
	}
	for i := range plants {
		where := "ref.ndjson line " + strconv.Itoa(i+1)
		if real[where] != ref[where] {
			t.Fatalf("leak check and reference disagree on %q (%s): leak check refuses %v, reference %v; findings %v",
				plants[i], c.Conv.Name, real[where], ref[where], chk.Findings())
		}
	}
}

// refNumberLeaks is the rule of an output number of 6+ digits, lit, at a
// key where the digits computed and copied were noted so: a raw input
// integer no count field declared leaks, unless its writer computed it
// (noted computed there and never copied).
func refNumberLeaks(lit string, in refInput, computed, copied map[string]bool) bool {
	return in.ints[lit] && !in.pass[lit] && !(computed[lit] && !copied[lit])
}

// refNotes says, for each planted number, whether its writer computed it
// (receipt.Computed), copied it (receipt.Copied) or noted nothing, as a
// conversion notes its outputs' numbers: the notes for the check, and the
// digits noted computed and copied (every plant sits at key "p").
func refNotes(plants []any, ch *fuzzgen.Choices) (notes receipt.Attrs, computed, copied map[string]bool) {
	computed, copied = map[string]bool{}, map[string]bool{}
	for _, p := range plants {
		num, ok := p.(json.Number)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(num), 10, 64)
		how := ch.Intn(3)
		if err != nil || how == 0 {
			continue // not a 64-bit number a writer could build, or noted nowhere
		}
		lit := strings.TrimPrefix(string(num), "-")
		if how == 1 {
			notes, computed[lit] = append(notes, receipt.Attr{Key: "p", Value: receipt.Computed(n)}), true
		} else {
			notes, copied[lit] = append(notes, receipt.Attr{Key: "p", Value: receipt.Copied(n)}), true
		}
	}
	return notes, computed, copied
}

// refPlant chooses one string (or number) to plant.
func refPlant(in refInput, ch *fuzzgen.Choices) any {
	var r string
	if len(in.raw) > 0 {
		r = in.raw[ch.Intn(len(in.raw))]
	}
	piece := func() string {
		if r == "" {
			return "x"
		}
		n := 1 + ch.Intn(min(len(r), 40))
		off := ch.Intn(len(r) - n + 1)
		p := r[off : off+n]
		if ch.OneIn(3) {
			p = strings.ToUpper(p)
		}
		return p
	}
	switch ch.Intn(9) {
	case 0, 1:
		return piece()
	case 8:
		// A value of a pass-through field, admitted or not: where the
		// two checks' rules of admission (shape, id grammar) differ.
		if len(in.fielded) > 0 {
			return in.fielded[ch.Intn(len(in.fielded))]
		}
		return r
	case 2:
		return r
	case 3:
		return "x=" + piece() + ";y"
	case 4:
		return fmt.Sprintf("zq%xqz", ch.Intn(1<<16))
	case 5:
		return refWords[ch.Intn(len(refWords))]
	case 6:
		if len(in.intList) > 0 {
			return json.Number(in.intList[ch.Intn(len(in.intList))])
		}
		return json.Number("1234567")
	}
	return refWords[ch.Intn(len(refWords))] + " " + piece()
}
