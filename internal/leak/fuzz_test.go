package leak

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// FuzzWalker: on any valid JSON the single-scan walker sees exactly the
// strings gjson sees, decoded the same way, at the same paths.
func FuzzWalker(f *testing.F) {
	for _, d := range []string{`{"a":"x\n\u00e9","b":[1,{"c":"\ud83d\ude00"}]}`, `["\ud800","\\\""]`, `{"k\"":{"":""}}`} {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !gjson.ValidBytes(doc) || !json.Valid(doc) {
			return
		}
		var want []string
		reference(gjson.ParseBytes(doc), "", &want)
		var got []string
		w := walker{doc: doc, visit: func(p, v string) { got = append(got, p+"="+v) }}
		w.value(w.ws(0))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("walker %q\ngjson  %q", got, want)
		}
	})
}

// FuzzLeakCheck: whatever the raw text, a copy of 16 of its bytes planted in
// an output is found, and so is the whole string when it has 8 to 15 bytes;
// the same text as a pass-through token is not a leak.
func FuzzLeakCheck(f *testing.F) {
	f.Add("private staging checkout failures", 3, "out:")
	f.Add("Acme-Co!", 0, "")
	f.Add("CANARY\n\"quoted\" \u00e9\u00e9\u00e9 text", 1, "sha256:")
	// issue #49: values that straddle kinds, planted as a model, a
	// version, an id or a name would be.
	f.Add("home/alice/payroll/q3-salaries.xlsx", 0, "chat ")
	f.Add("alice.kowalczyk@acme", 2, "")
	f.Add("2.1.39-alice.kowalczyk.payroll", 5, "")
	f.Add("mysql:root:hunter2hunter2", 1, "execute_tool ")
	f.Add("key-0123456789abcdef0123456789abcdef", 4, "")
	f.Add("ses_alicePayrollQ3notes2026", 0, "")
	f.Fuzz(func(t *testing.T, raw string, at int, prefix string) {
		doc, err := json.Marshal(map[string]string{"field": raw})
		if err != nil || !strings.EqualFold(gjson.GetBytes(doc, "field").Str, raw) && gjson.GetBytes(doc, "field").Str != raw {
			return
		}
		raw = gjson.GetBytes(doc, "field").Str // as JSON decodes it (invalid UTF-8 becomes U+FFFD)
		var planted string
		switch {
		case len(raw) >= 16:
			at = ((at % (len(raw) - 15)) + (len(raw) - 15)) % (len(raw) - 15)
			planted = raw[at : at+16]
		case len(raw) >= 8:
			planted = raw
		default:
			return
		}
		o := NewOutputs(nil)
		o.Add(prefix+planted, "output")
		c := o.NewChecker()
		c.Line(doc, 1, nil, nil)
		if len(c.Findings()) == 0 && !isDigestLike(prefix+planted) && !informationFree(prefix+planted) && !onlyOwnBytes(prefix, planted) {
			t.Fatalf("planted copy of raw bytes %q not found", planted)
		}
	})
}

// onlyOwnBytes reports a planted copy that, in prefix+planted, covers no
// byte of a part that could carry input: separators, dots and digests only
// (the leak model's open parts; this fuzz target has no vocabulary).
func onlyOwnBytes(prefix, planted string) bool {
	s := prefix + planted
	from, to := len(prefix), len(s)
	cur := 0
	for _, p := range splitParts(s) {
		j := strings.Index(s[cur:], p)
		if j < 0 {
			return false
		}
		at := cur + j
		own := wholeOrSegments(p, func(w string) bool { return w == "" || receipt.IsDigest(w) }) // dots and digests
		if at < to && at+len(p) > from && !own {
			return false
		}
		cur = at + len(p)
	}
	return true
}

func isDigestLike(s string) bool {
	return strings.HasPrefix(s, "sha256:") && len(s) == 71 || strings.HasPrefix(s, "hmac-sha256:") && len(s) == 76
}

// FuzzLeakCheckKeysAndNumbers: raw text planted as an object key is found
// in an output exactly as it is as a value (case changed too), and a raw
// number of 6+ digits copied to an output number is found, while the same
// number in a declared count field is not.
func FuzzLeakCheckKeysAndNumbers(f *testing.F) {
	f.Add("CANARY-tenant-payroll-export", uint64(4111111111111111), true)
	f.Add("acme", uint64(123456), false)
	f.Add("x_sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df", uint64(5551234567), true)
	f.Add("alice.kowalczyk@acme", uint64(600000), false) // a timeout's number (issue #49)
	f.Add("Users-alice", uint64(1048576), true)
	f.Fuzz(func(t *testing.T, raw string, num uint64, upper bool) {
		doc, err := json.Marshal(map[string]any{"result": map[string]int{raw: 1}})
		if err != nil {
			return
		}
		var keys map[string]map[string]int
		if json.Unmarshal(doc, &keys) != nil {
			return
		}
		for k := range keys["result"] {
			raw = k // as JSON decodes it
		}
		if raw == "" || strings.ContainsAny(raw, " =,;()[]\n\t\".:") || isNumber(raw) {
			return // separators make composite parts; a number string is a number
		}
		planted := raw
		if upper {
			planted = strings.ToUpper(raw)
		}
		in := NewInput()
		in.Line(doc, nil, nil)
		o := NewOutputs(nil)
		o.Add(planted, "output")
		c := o.Check(in)
		c.Line(doc, 1, nil, nil)
		if len(c.Findings()) == 0 && !isDigestLike(planted) && isASCII(raw) {
			t.Fatalf("a key %q copied to an output was not found", raw)
		}

		if num < 100000 || num > 1<<53 {
			return
		}
		lit := strconv.FormatUint(num, 10)
		ndoc := []byte(`{"x":{"v":` + lit + `},"usage":{"input_tokens":1}}`)
		in = NewInput()
		in.Line(ndoc, Paths{"usage.input_tokens": Count}, nil)
		o = NewOutputs(nil)
		o.AddNumber(lit, "output")
		if len(o.Check(in).Findings()) == 0 {
			t.Fatalf("a raw number %s copied to an output was not found", lit)
		}
		cdoc := []byte(`{"usage":{"input_tokens":` + lit + `}}`)
		in = NewInput()
		in.Line(cdoc, Paths{"usage.input_tokens": Count}, nil)
		if fs := o.Check(in).Findings(); len(fs) != 0 && num <= MaxCount {
			t.Fatalf("a declared count %s was reported: %+v", lit, fs)
		}
	})
}

// FuzzKindsFromKnowledge (issue #49): whatever words a hostile value is
// made of, a path, an e-mail address without a dotted domain or a phone
// number is never a model or a name, not even revealed; a version with
// words after its numbers is no version; a password behind a database
// URL's colons, a Mailgun key or "ses_" and anything that is not
// OpenCode's id is no id; and a model name the catalog does not know is
// never in clear unless names are revealed.
func FuzzKindsFromKnowledge(f *testing.F) {
	f.Add("alice", "payroll", uint32(2079460958))
	f.Add("kowalczyk", "q3", uint32(5551234))
	f.Add("beta", "rc", uint32(0))
	f.Fuzz(func(t *testing.T, a, b string, n uint32) {
		if !lowerWord(a) || !lowerWord(b) || len(a) < 2 || len(b) < 2 {
			return
		}
		phone := fmt.Sprintf("0%09d", n%1_000_000_000+1) // a national number: 10 digits
		for _, v := range []string{"home/" + a + "/" + b + "/q3-salaries.xlsx", "Users/" + a + "/" + b, a + "." + b + "@acme",
			a + "@" + b, "tel-" + phone, a + "-" + phone} {
			for _, s := range []Shape{Model, Name, ServerToolName} {
				if s.Admit(v) || s.Clear(v, true) {
					t.Fatalf("%s admits %q", s, v)
				}
			}
		}
		if v := "2.1.39-" + a + "." + b + ".payroll"; Version.Admit(v) {
			t.Fatalf("version %q admitted", v)
		}
		for _, v := range []string{"mysql:root:" + a + "1", a + ":" + b + ":" + phone, "key-0123456789abcdef0123456789abcdef",
			"ses_" + a + b + "2026", "prt_" + a, "mysql-" + a + "-" + b + "2"} {
			if strings.HasPrefix(v, "mysql-") && lowerHex(b) {
				continue // a hex segment is an id's ("conv-9c1e"): words of a to f only spell few
			}
			if strings.HasPrefix(v, "ses_") && openCodeID(v[4:]) {
				continue // OpenCode's grammar: 12 hex digits and 14 base62, whatever they spell
			}
			if ID.Admit(v) || IDOrUUID.Admit(v) {
				t.Fatalf("id %q admitted", v)
			}
		}
		if m := a + "-" + b + "-7b"; !KnownModel(m) && Model.Clear(m, false) {
			t.Fatalf("model %q unknown to the catalog written in clear", m)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// informationFree reports an output made of separators and counts only,
// fewer than 6 digits in all (":0[[[[[[["): the leak model takes it for
// the program's own (countLike), as it can name nothing.
func informationFree(s string) bool {
	return digitCount(s) < 6 && all(splitParts(s), countParts)
}

// FuzzTails: the last-key filter changes nothing the first pass learns.
// For any valid document, with pass-through paths drawn from its own
// leaves (every shape, and "*.<key>" entries too), Input.Line with the
// filter counts the same raw strings and bytes and keeps the same
// pass-through values and raw numbers as the walk that looks every path up.
func FuzzTails(f *testing.F) {
	for _, d := range []string{
		`{"type":"assistant","uuid":"0f3c9a2e-5b1d-4c8e-9f7a-1234567890ab","message":{"usage":{"input_tokens":123456},"content":[{"type":"text","text":"hi"}]}}`,
		`{"a":[["x",1234567],{"#":"y"}],"b":{"c":{"d":"Acme-Co secret","e":98765432}},"":""}`,
		`[{"k\"":"v"},"\u00e9",12345678,true,null]`,
		`{"a":{"b.c":"Acme-Co","d.e":12345678}}`, // a key with a dot: its path's last part is "c"
	} {
		f.Add([]byte(d), uint8(0))
		f.Add([]byte(d), uint8(3))
	}
	shapes := []Shape{Label, ID, UUID, Count, Name, Time, Version, Model, EpochMs}
	f.Fuzz(func(t *testing.T, doc []byte, every uint8) {
		if !gjson.ValidBytes(doc) || !json.Valid(doc) {
			return
		}
		var leaves []string
		w := walker{doc: doc, visit: func(p, _ string) { leaves = append(leaves, p) }}
		w.value(w.ws(0))
		step := int(every%4) + 1
		pass := Paths{"*.input_tokens": Count}
		for i := 0; i < len(leaves); i += step {
			p := leaves[i]
			pass[p] = shapes[i%len(shapes)]
			if i%3 == 0 {
				pass["*."+p[strings.LastIndexByte(p, '.')+1:]] = Count
			}
		}
		filtered := NewInput()
		filtered.Line(doc, pass, nil)
		plain := NewInput()
		plain.seed = filtered.seed
		pw := walker{in: plain, doc: doc, pass: pass, tail: true} // no filter: every path looked up
		pw.value(pw.ws(0))
		filtered.freeze()
		plain.freeze()
		if filtered.RawCount != plain.RawCount || filtered.RawBytes != plain.RawBytes ||
			fmt.Sprint(filtered.pass) != fmt.Sprint(plain.pass) || fmt.Sprint(filtered.nums) != fmt.Sprint(plain.nums) {
			t.Fatalf("with the filter: %d raw (%d bytes), pass %v, nums %v\nwithout:         %d raw (%d bytes), pass %v, nums %v",
				filtered.RawCount, filtered.RawBytes, filtered.pass, filtered.nums, plain.RawCount, plain.RawBytes, plain.pass, plain.nums)
		}
	})
}
