package otlp

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenTraces are every trace the golden tests keep, indented (small) and
// compact (as Write writes a long session's trace).
func goldenTraces(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("..", "..", "golden", "*", "*.otel.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	var docs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		docs = append(docs, b, c.Bytes())
	}
	return docs
}

// TestFastValidAcceptsOurTraces: every trace convert writes takes the fast
// path (validate is only there to word problems).
func TestFastValidAcceptsOurTraces(t *testing.T) {
	docs := append(goldenTraces(t), sample(t))
	for i, d := range docs {
		if p := validate(d); len(p) > 0 {
			t.Fatalf("doc %d: invalid: %v", i, p)
		}
		if !fastValid(d) {
			t.Errorf("doc %d: valid, but the fast path refuses it", i)
		}
	}
}

// TestFastDifferential: on every golden trace and on mutants of them, the
// fast path never accepts a document validate rejects. It may refuse a
// valid one (validate then accepts it), never the reverse.
func TestFastDifferential(t *testing.T) {
	docs := append(goldenTraces(t), sample(t))
	n := 50
	if testing.Short() {
		n = 10
	}
	var accepted, refused int
	check := func(d []byte, how string) {
		if !fastValid(d) {
			refused++
			return
		}
		accepted++
		if p := validate(d); len(p) > 0 {
			t.Fatalf("fast path accepts a document validate rejects (%s): %v\n%s", how, p, clip(d))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range docs {
		check(d, "golden")
		for i := 0; i < n; i++ {
			m, how := mutate(r, d)
			check(m, how)
		}
	}
	for _, m := range rejectCases(t) {
		check(m, "TestValidateRejects case")
	}
	t.Logf("%d documents accepted by both, %d refused by the fast path", accepted, refused)
	if accepted < len(docs) || refused < len(docs) {
		t.Fatalf("mutants too tame or too wild: %d accepted, %d refused", accepted, refused)
	}
}

// FuzzFastValid: the fast path never accepts what validate rejects.
func FuzzFastValid(f *testing.F) {
	for _, d := range goldenTraces(f) {
		if len(d) < 8<<10 { // small seeds: the fuzzer mutates faster
			f.Add(d)
		}
	}
	f.Add(sample(f))
	f.Fuzz(func(t *testing.T, d []byte) {
		if fastValid(d) {
			if p := validate(d); len(p) > 0 {
				t.Fatalf("fast path accepts a document validate rejects: %v", p)
			}
		}
	})
}

func rejectCases(t *testing.T) [][]byte {
	good := string(sample(t))
	var out [][]byte
	for _, c := range [][2]string{
		{`"kind": 1`, `"kind": 1, "kindd": 2`}, {`"kind": 1`, `"Kind": 1`}, {`"kind": 1`, `"kind": 1.0`},
		{`"kind": 1`, `"kind": 9`}, {`"kind": 1`, `"kind": null`}, {`"name": "agent.session"`, `"name": ""`},
		{`"intValue": "4611686018427387904"`, `"intValue": "99999999999999999999"`},
		{`"intValue": "4611686018427387904"`, `"intValue": "+5"`},
		{`"intValue": "4611686018427387904"`, `"intValue": 5`},
		{`"startTimeUnixNano": "10"`, `"startTimeUnixNano": "010"`},
		{`"startTimeUnixNano": "10"`, `"startTimeUnixNano": "18446744073709551616"`},
		{`"endTimeUnixNano": "20"`, `"endTimeUnixNano": "9"`},
		{`"boolValue": false`, `"boolValue": false, "stringValue": "x"`},
		{`"key": "n"`, `"key": "f"`}, {`"key": "n"`, `"key": ""`}, {`"key": "n"`, `"key": "\u006e"`},
		{`"doubleValue": 0.5`, `"doubleValue": 1e400`}, {`"doubleValue": 0.5`, `"doubleValue": 05`},
		{`"doubleValue": 0.5`, `"doubleValue": -0.5e-3`},
		{`"name": "e"`, `"name": "e\u0000"`}, {`"name": "e"`, `"name": "\ud800"`},
	} {
		if !strings.Contains(good, c[0]) {
			t.Fatalf("test setup: %q not in the sample", c[0])
		}
		out = append(out, []byte(strings.Replace(good, c[0], c[1], 1)))
	}
	return append(out, []byte(good+"{}"), []byte("\ufeff"+good), []byte(good[:len(good)/2]),
		[]byte(`{"resourceSpans":[]}`), []byte(`null`), []byte(`{}`))
}

// mutate changes one thing in d: a byte replaced, dropped or doubled, a
// string's body changed, a value swapped for another JSON value, or a
// key's case changed.
func mutate(r *rand.Rand, d []byte) ([]byte, string) {
	m := append([]byte(nil), d...)
	at := r.IntN(len(m))
	switch r.IntN(6) {
	case 0:
		const interesting = "\"\\{}[],:0123456789aefAEF-+.eE nul\x00\x1f\xff"
		m[at] = interesting[r.IntN(len(interesting))]
		return m, "byte replaced"
	case 1:
		return append(m[:at], m[at+1:]...), "byte dropped"
	case 2:
		return append(m[:at+1], m[at:]...), "byte doubled"
	case 3: // the body of the string at or after at
		q := bytes.IndexByte(m[at:], '"')
		if q < 0 {
			return m, "unchanged"
		}
		i := at + q + 1
		e := bytes.IndexByte(m[i:], '"')
		if e < 0 {
			return m, "unchanged"
		}
		bodies := []string{"", "0", "00", "0000000000000000", "00000000000000000000000000000000", "ABCDEF0123456789",
			"abcdef0123456789", "18446744073709551615", "18446744073709551616", "-1", "+1", "9223372036854775808",
			"-9223372036854775808", `\u0041`, `\n`, "x", "traceId", "resourceSpans", "\xff\xfe"}
		b := bodies[r.IntN(len(bodies))]
		return append(m[:i], append([]byte(b), m[i+e:]...)...), "string body"
	case 4: // the value after a colon
		c := bytes.IndexByte(m[at:], ':')
		if c < 0 {
			return m, "unchanged"
		}
		i := at + c + 1
		end := valueEnd(m, i)
		vals := []string{"null", "0", "1", "5", "6", "-1", "1.0", "1e2", "true", "false", `""`, `"x"`, "[]", "{}", `{"x":1}`,
			`[null]`, `{"stringValue":"a"}`, `{"intValue":"1"}`, `{"arrayValue":{}}`, `{"arrayValue":{"values":[{"boolValue":true}]}}`,
			`{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}}]}}`, `{"kvlistValue":{}}`,
			`{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}},{"key":"a","value":{"boolValue":true}}]}}`,
			`{"kvlistValue":{"values":[{"key":"","value":{"boolValue":true}}]}}`}
		v := vals[r.IntN(len(vals))]
		return append(m[:i], append([]byte(v), m[end:]...)...), "value swapped"
	default: // a key's case
		q := bytes.Index(m[at:], []byte(`":`))
		if q < 0 || at+q == 0 {
			return m, "unchanged"
		}
		i := at + q - 1
		if 'a' <= m[i] && m[i] <= 'z' {
			m[i] -= 'a' - 'A'
		} else if 'A' <= m[i] && m[i] <= 'Z' {
			m[i] += 'a' - 'A'
		}
		return m, "key case"
	}
}

// valueEnd returns where the JSON value starting near i ends (a rough
// scan: good enough to cut out one value, and any miss is just another
// mutant).
func valueEnd(m []byte, i int) int {
	depth, inStr := 0, false
	for j := i; j < len(m); j++ {
		c := m[j]
		switch {
		case inStr:
			if c == '\\' {
				j++
			} else if c == '"' {
				inStr = false
				if depth == 0 {
					return j + 1
				}
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case c == ',' && depth == 0:
			return j
		}
	}
	return len(m)
}

func clip(d []byte) string {
	if len(d) > 2000 {
		return string(d[:2000]) + "..."
	}
	return string(d)
}
