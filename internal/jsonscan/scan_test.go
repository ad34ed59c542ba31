package jsonscan

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testlines"
	"github.com/tidwall/gjson"
)

// agree fails t when Scan and gjson disagree on doc: validity, and for a
// valid object its top-level keys and raw values.
func agree(t *testing.T, doc []byte) {
	t.Helper()
	var top []Member
	object, err := Scan(doc, &top)
	if err == ErrDepth {
		return // gjson has no bound: it would recurse until the stack runs out
	}
	if want := gjson.ValidBytes(doc); (err == nil) != want {
		t.Fatalf("Scan(%.200q) valid=%v, gjson.ValidBytes says %v", doc, err == nil, want)
	}
	// On any bytes, valid or not, Children returns (no panic, no read
	// past the end: the fuzzer runs it on everything).
	children(string(doc), true, func(Member) bool { return true })
	if err != nil {
		return
	}
	// On a valid document Children (strings skipped, not checked) gives
	// the members the checking scan gives.
	each := func(trusted bool) (out []Member) {
		children(string(doc), trusted, func(m Member) bool { out = append(out, m); return true })
		return out
	}
	if got, want := each(true), each(false); !slices.Equal(got, want) {
		t.Fatalf("Children(%.200q) = %v, checking every string gives %v", doc, got, want)
	}
	if !object {
		return
	}
	var want []string
	gjson.ParseBytes(doc).ForEach(func(k, v gjson.Result) bool {
		want = append(want, k.Str+"\x00"+v.Raw)
		return true
	})
	var got []string
	for _, m := range top {
		key := string(doc[m.KeyStart:m.KeyEnd])
		if m.KeyEscaped {
			key = gjson.ParseBytes(doc[m.KeyStart-1 : m.KeyEnd+1]).Str
		} else if strings.Contains(key, `\`) {
			t.Fatalf("key %q holds an escape but KeyEscaped is false", key)
		}
		got = append(got, key+"\x00"+string(doc[m.ValStart:m.ValEnd]))
	}
	if strings.Join(got, "\x01") != strings.Join(want, "\x01") {
		t.Fatalf("Scan(%.200q) members %q, gjson ForEach %q", doc, got, want)
	}
}

func TestScanAgreesWithGjson(t *testing.T) {
	for _, doc := range []string{
		``, ` `, `{}`, ` {} `, `{`, `}`, `[]`, `[ ]`, `[1,]`, `[,1]`, `{"a":1,}`, `{,"a":1}`,
		`{"a" : 1 , "b":[1, 2 ,{"c":null}] }`, `{"a":1}x`, `{"a":1} {}`, `{"a"}`, `{"a":}`, `{a:1}`,
		`"x"`, `"`, `"\"`, `"\\"`, `"\u00e9"`, `"\u00g9"`, `"\u12"`, `"\x"`, "\"a\tb\"", "\"\x7f\"", "\"\xff\xfe\"",
		`0`, `-0`, `01`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5x`, `2.5e10`, `-12.0E+3`, `+1`,
		`true`, `tru`, `truex`, `false`, `fals`, `null`, `nul`, `nullx`, `[true,false,null]`, `NaN`, `Infinity`,
		`{"k\"ey":1,"k\\":"v\n"}`, `{"dup":1,"dup":2}`, "{\"a\":\"b\"}\n", "\t{\"a\":1}\r\n",
		`{"a":"` + strings.Repeat("0123456789abcdef", 9) + `"}`, `{"a":"` + strings.Repeat("é€", 40) + `\" "}`,
		`{"a":"` + strings.Repeat("x", 7) + "\x01" + `"}`, `{"a":"` + strings.Repeat("x", 15) + `\`,
	} {
		agree(t, []byte(doc))
	}
}

// TestScanAgreesOnRealLines holds Scan to gjson on every line of the
// samples and goldens, and on each line's truncations and byte flips
// (each distinct line once: the result depends on the line alone).
func TestScanAgreesOnRealLines(t *testing.T) {
	lines := testlines.Lines(t, "../../samples", "../../golden")
	for _, line := range testlines.Distinct(lines) {
		agree(t, line)
		step := max(1, len(line)/16)
		for i := 0; i < len(line); i += step {
			agree(t, line[:i])
			for _, b := range []byte{'"', '\\', '}', ']', ',', ':', 0x01, 'x', '0'} {
				m := bytes.Clone(line)
				m[i] = b
				agree(t, m)
			}
		}
	}
	if len(lines) < 500 {
		t.Fatalf("read only %d lines: the samples or goldens moved", len(lines))
	}
}

func TestScanRefusesDeepNesting(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want error
	}{
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), nil},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), ErrDepth},
		{`{"a":` + strings.Repeat(`{"a":`, MaxDepth-1) + `1` + strings.Repeat("}", MaxDepth), nil},
		{`{"a":` + strings.Repeat(`{"a":`, MaxDepth) + `1` + strings.Repeat("}", MaxDepth+1), ErrDepth},
		{strings.Repeat("[", 3_000_000), ErrDepth}, // would be a fatal stack overflow for a recursive reader
	} {
		if _, err := Scan([]byte(tc.doc), nil); err != tc.want {
			t.Errorf("depth %d: err %v, want %v", strings.Count(tc.doc, "[")+strings.Count(tc.doc, "{"), err, tc.want)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"content":[{"text":"a\"b"}]}}`, `[1,2.5e3,-0,true,null]`, `"\u00e9\n"`, `{"a":"` + strings.Repeat("y", 20) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { agree(t, doc) })
}

func BenchmarkScan(b *testing.B) {
	line := []byte(`{"parentUuid":"5b7c","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` +
		strings.Repeat(`func main() { fmt.Println(\"hello, world\") }\n`, 400) + `"}]},"uuid":"9a1e","timestamp":"2025-06-01T10:00:00.000Z"}`)
	b.SetBytes(int64(len(line)))
	b.Run("jsonscan", func(b *testing.B) {
		var top []Member
		for range b.N {
			top = top[:0]
			Scan(line, &top)
		}
	})
	b.Run("gjson", func(b *testing.B) {
		for range b.N {
			gjson.ValidBytes(line)
			gjson.ParseBytes(line).ForEach(func(_, _ gjson.Result) bool { return true })
		}
	})
}

// BenchmarkChildren: a content block list with a long tool result, walked
// as the readers walk it, trusting the line Scan checked and checking it.
func BenchmarkChildren(b *testing.B) {
	content := `[{"type":"tool_result","tool_use_id":"toolu_1","content":"` +
		strings.Repeat(`func main() { fmt.Println(\"hello, world\") }\n`, 400) + `"},{"type":"text","text":"done"}]`
	b.SetBytes(int64(len(content)))
	for _, trusted := range []bool{true, false} {
		b.Run(map[bool]string{true: "trusted", false: "checking"}[trusted], func(b *testing.B) {
			for range b.N {
				children(content, trusted, func(Member) bool { return true })
			}
		})
	}
}

func TestSpace(t *testing.T) {
	naive := func(doc string, i int) int {
		for i < len(doc) && strings.IndexByte(" \t\n\r", doc[i]) >= 0 {
			i++
		}
		return i
	}
	for _, doc := range []string{
		"", "x", " x", "\n", "\n        x", "\n                \t x", "\n       x", "\n" + strings.Repeat(" ", 100),
		"\n" + strings.Repeat(" ", 17) + "\r\n" + strings.Repeat(" ", 9) + "}", " \t\r\n \n\n  ]", "\n        \n        ",
	} {
		for i := 0; i <= len(doc); i++ {
			if got, want := Space(doc, i), naive(doc, i); got != want {
				t.Errorf("Space(%q, %d) = %d, want %d", doc, i, got, want)
			}
			if got, want := Space([]byte(doc), i), naive(doc, i); got != want {
				t.Errorf("Space([]byte(%q), %d) = %d, want %d", doc, i, got, want)
			}
		}
	}
}
