// Package fuzzgen builds agent session logs for the fuzz targets from a
// format's grammar, driven by a stream of choices: the fuzzer's bytes. A
// native reader's grammar lives beside it, in a test file
// (converters/<reader>/grammar_test.go, built with Gen); the scenario
// converters' logs are built here (Scenario). The same bytes always give
// the same log, so a finding reproduces, and the engine's minimisation of
// the bytes minimises the log (an exhausted stream chooses 0: the
// shortest, plainest option).
//
// A grammar first builds a well-formed log of the format (record types,
// content blocks, ids that link tool calls to results, subagent files and
// sidecars, compaction, several versions' shapes), then perturbs it:
// records reordered, dropped or duplicated, ids swapped, field types
// changed, objects and numbers put where strings were, junk lines. Every
// raw slot (prompt, tool argument and result, path, description) holds a
// canary: a string with "CANARY" in it that no output may carry.
//
// It is test support: nothing in the program imports it.
package fuzzgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Choices is the stream of decisions a generator reads from.
type Choices struct {
	data []byte
	pos  int
}

// NewChoices reads decisions from data.
func NewChoices(data []byte) *Choices { return &Choices{data: data} }

// Byte returns the next byte, or 0 when the stream is exhausted.
func (c *Choices) Byte() byte {
	if c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	return b
}

// Intn returns a choice in [0, n).
func (c *Choices) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(c.Byte())
	if n > 256 {
		v = v<<8 | int(c.Byte())
	}
	return v % n
}

// OneIn is true with probability 1/n (false when the stream is exhausted).
func (c *Choices) OneIn(n int) bool { return c.Left() && c.Intn(n) == n-1 }

// Left reports whether any choice is left.
func (c *Choices) Left() bool { return c.pos < len(c.data) }

// Pick returns one of xs.
func Pick[T any](c *Choices, xs ...T) T { return xs[c.Intn(len(xs))] }

// Log is one generated input: its files, the main one first.
type Log struct {
	Format     string            // the converter's name: "claude_code", "codex", "cursor", a scenario converter's
	Files      map[string][]byte // slash-separated names
	Main       string            // the session file
	Meta       string            // the session file's own sidecar (Layout.MainSidecar), "" when none
	Companions []Companion       // further files of the session
	Canaries   []string          // every canary made for a raw slot (a choice not taken may leave one unused)
}

// Companion is a further file of the session: a subagent transcript and
// its optional sidecar, named relative to the main file's directory.
type Companion struct {
	Path, Rel, Meta string
}

// Rec is one record under construction.
type Rec = map[string]any

// Gen is what a reader's grammar builds its log with (the grammars live
// beside their readers, in test files: converters/<reader>/grammar_test.go):
// the choices it reads, the log it fills, canaries for raw slots (Canary,
// Raw), ids (ID, Earlier), record times (Clock) and the damage real logs
// show (Perturb, MutateField, Encode).
type Gen struct {
	C        *Choices
	Log      *Log
	n        int      // canaries written
	ids      []string // ids handed out, for links and swaps
	canaryOf map[string]string
}

// NewGen starts a log of format built from the choices c.
func NewGen(c *Choices, format string) *Gen {
	return &Gen{C: c, Log: &Log{Format: format, Files: map[string][]byte{}}, canaryOf: map[string]string{}}
}

// Canary returns a new raw value for a slot: "CANARY" with a number and
// some words, in one of several shapes (path, prose, code, JSON text), or
// one that straddles the kinds of values written in clear, as a hostile
// log's values do: a model-shaped name no catalog knows, an e-mail address
// with no dotted domain, a version with words after it, a credential
// shaped like an id (issue 49's corpus). A writer must write each as its
// digest, never in clear.
func (g *Gen) Canary(slot string) string {
	g.n++
	tag := fmt.Sprintf("CANARY%d%s", g.n, slot)
	var v string
	switch g.C.Intn(10) {
	case 6:
		v = tag + "-finetune-q4"
	case 7:
		v = "alice." + tag + "@acme"
	case 8:
		v = "2.1.39-" + tag + ".payroll"
	case 9:
		v = "mysql:root:" + tag
	case 0:
		v = tag + " please fix the rounding bug in invoices"
	case 1:
		v = "/Users/alice/src/" + tag + "/ledger.go"
	case 2:
		v = "{\"cmd\":\"" + tag + "\",\"n\":123456789}"
	case 3:
		v = "line one " + tag + "\nline two\ttabbed \u00e9t\u00e9 \u2603"
	case 4:
		v = strings.Repeat(tag+" ", 1+g.C.Intn(8))
	default:
		v = tag + "-sk-ant-api03-" + strings.Repeat("x", 20)
	}
	g.Log.Canaries = append(g.Log.Canaries, tag)
	return v
}

// Raw returns the canary for an original value, the same one every time:
// values that must match across records (a text and its copy) still do.
func (g *Gen) Raw(orig string) string {
	if v, ok := g.canaryOf[orig]; ok {
		return v
	}
	g.n++
	tag := fmt.Sprintf("CANARY%d", g.n)
	var v string
	switch g.C.Intn(4) {
	case 0:
		v = tag + "-" + orig // a prefix keeps suffixes (SKILL.md, .jsonl) that converters read
	case 1:
		v = orig + " " + tag
	case 2:
		v = strings.Replace(orig, "/", "/"+tag+"/", 1)
		if v == orig {
			v = orig + tag
		}
	default:
		v = tag
	}
	g.Log.Canaries = append(g.Log.Canaries, tag)
	g.canaryOf[orig] = v
	return v
}

// ID returns a new id of a family ("toolu_", "call_", "" for a UUID), or,
// now and then, one handed out before: ids collide in real logs.
func (g *Gen) ID(prefix string) string {
	if len(g.ids) > 0 && g.C.OneIn(12) {
		return g.ids[g.C.Intn(len(g.ids))]
	}
	k := len(g.ids) + 1
	var v string
	if prefix == "" {
		v = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x7f3c0000+k, k, k, k, 0x5b6e0000+k)
	} else {
		v = fmt.Sprintf("%s%016x", prefix, uint64(k)*0x9e3779b97f4a7c15)
	}
	g.ids = append(g.ids, v)
	return v
}

// Earlier returns an id handed out before (or a fresh one when none).
func (g *Gen) Earlier(prefix string) string {
	var fam []string
	for _, id := range g.ids {
		if strings.HasPrefix(id, prefix) {
			fam = append(fam, id)
		}
	}
	if len(fam) == 0 || g.C.OneIn(8) {
		return g.ID(prefix)
	}
	return fam[g.C.Intn(len(fam))]
}

// Clock gives record times: mostly forward, sometimes equal or backwards,
// now and then in another accepted layout or not a time at all.
type Clock struct {
	g  *Gen
	ms int64
}

// NewClock starts a clock whose choices and canaries are g's.
func NewClock(g *Gen) *Clock { return &Clock{g: g} }

// Next is the next record's time.
func (k *Clock) Next() any {
	switch k.g.C.Intn(16) {
	case 14:
		k.ms -= int64(k.g.C.Intn(5000))
	case 15:
	default:
		k.ms += int64(1 + k.g.C.Intn(90000))
	}
	t := k.ms
	sec, ms := t/1000, t%1000
	base := fmt.Sprintf("2026-03-14T%02d:%02d:%02d", 9+(sec/3600)%12, (sec/60)%60, sec%60)
	switch k.g.C.Intn(24) {
	case 20:
		return base + "+02:00"
	case 21:
		return base + fmt.Sprintf(".%06dZ", ms*1000)
	case 22:
		return "yesterday " + k.g.Canary("time")
	case 23:
		return t
	}
	return base + fmt.Sprintf(".%03dZ", ms)
}

// EpochMs is the clock as Unix milliseconds.
func (k *Clock) EpochMs() int64 {
	k.ms += int64(1 + k.g.C.Intn(5000))
	return 1786000000000 + k.ms
}

// Perturb changes a built record list: the same edits the three formats'
// real drift and damage make. Most records are left as they are.
func (g *Gen) Perturb(recs []Rec) []Rec {
	for i := 0; i < len(recs) && g.C.Left(); i++ {
		switch g.C.Intn(24) { // only while choices are left: an exhausted stream edits nothing
		case 0: // drop
			recs = append(recs[:i], recs[i+1:]...)
			i--
		case 1: // duplicate (a streaming row written twice)
			recs = append(recs[:i+1], append([]Rec{clone(recs[i])}, recs[i+1:]...)...)
			i++
		case 2: // swap with the next
			if i+1 < len(recs) {
				recs[i], recs[i+1] = recs[i+1], recs[i]
			}
		case 3: // move to the end
			r := recs[i]
			recs = append(append(recs[:i], recs[i+1:]...), r)
		case 4, 5: // change one field's type or content
			g.MutateField(recs[i], 0)
		case 6: // swap an id with another record's
			if j := g.C.Intn(len(recs)); j != i {
				swapIDs(recs[i], recs[j])
			}
		}
	}
	return recs
}

// MutateField changes one value of r: a string becomes a number, an
// object, an array or null; a number becomes a string; a key is dropped or
// a new one with a canary added.
func (g *Gen) MutateField(r Rec, depth int) {
	keys := sortedKeys(r)
	if len(keys) == 0 || depth > 4 {
		return
	}
	k := keys[g.C.Intn(len(keys))]
	if k == "type" && !g.C.OneIn(4) {
		return // mostly keep the record recognisable
	}
	switch v := r[k].(type) {
	case map[string]any:
		if g.C.OneIn(3) {
			r[k] = g.junkValue()
		} else {
			g.MutateField(v, depth+1)
		}
	case []any:
		if len(v) > 0 && !g.C.OneIn(3) {
			if m, ok := v[g.C.Intn(len(v))].(map[string]any); ok {
				g.MutateField(m, depth+1)
				return
			}
		}
		r[k] = g.junkValue()
	default:
		switch g.C.Intn(4) {
		case 0:
			delete(r, k)
		case 1:
			r[g.Canary("key")] = g.Canary("value")
		default:
			r[k] = g.junkValue()
		}
	}
}

// junkValue is a value of an unexpected type, canaries in its strings and
// keys.
func (g *Gen) junkValue() any {
	switch g.C.Intn(9) {
	case 0:
		return nil
	case 1:
		return true
	case 2:
		return 12345678901234
	case 3:
		return -1.5e300
	case 4:
		return []any{g.Canary("elem"), 7}
	case 5:
		return map[string]any{g.Canary("key"): g.Canary("value")}
	case 6:
		return ""
	case 7:
		return json.Number("123456789012345678901234567890")
	}
	return g.Canary("junk")
}

// swapIDs exchanges the values of the first id-like key both records have.
func swapIDs(a, b Rec) {
	for _, k := range []string{"uuid", "parentUuid", "id", "call_id", "session_id", "sessionId", "tool_use_id", "toolCallId"} {
		if va, ok := a[k]; ok {
			if vb, ok := b[k]; ok {
				a[k], b[k] = vb, va
				return
			}
		}
	}
}

func clone(r Rec) Rec {
	b, _ := json.Marshal(r)
	var out Rec
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.Decode(&out)
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Encode writes records as JSONL, with the line-level damage real files
// have now and then: a junk line, a blank line, CRLF, a torn last line,
// invalid UTF-8.
func (g *Gen) Encode(recs []Rec) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			continue
		}
		switch g.C.Intn(40) { // 0, the plain line, when the choices run out
		case 35:
			b.WriteString("not json " + g.Canary("junkline") + "\n")
		case 36:
			b.WriteString("\n")
		case 37:
			line = append(line, '\r')
		case 38:
			b.Write([]byte{'{', '"', 0xff, 0xfe, '"', ':', '1', '}', '\n'})
		case 39:
			b.WriteString("[" + string(line) + "]\n")
			continue
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if b.Len() > 2 && g.C.OneIn(10) {
		b.Truncate(b.Len() - 1 - g.C.Intn(min(8, b.Len()-1)))
	}
	return b.Bytes()
}
