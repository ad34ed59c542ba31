package leak

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

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
		c.Line(doc, 1, nil)
		if len(c.Findings()) == 0 && !isDigestLike(prefix+planted) {
			t.Fatalf("planted copy of raw bytes %q not found", planted)
		}
	})
}

func isDigestLike(s string) bool {
	return strings.HasPrefix(s, "sha256:") && len(s) == 71 || strings.HasPrefix(s, "hmac-sha256:") && len(s) == 76
}
