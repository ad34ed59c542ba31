package main

// Issue #49, item 7: the envelope's fields are chosen by whoever signed
// it. convert verify shows them as it shows every value read back from a
// file: its own words in clear, anything else by digest; never text the
// signer chose, and never a terminal escape.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/sign"
	"github.com/contextreceipts/convert/internal/untrusted"
)

func TestVerifyShowsNoEnvelopeText(t *testing.T) {
	const hostile = "application/CANARY-type\x1b]0;pwned\x07\x1b[2J"
	for _, resign := range []bool{true, false} {
		name := "signed over the hostile type"
		if !resign {
			name = "type changed after signing"
		}
		t.Run(name, func(t *testing.T) {
			f := setup(t, "hmac-sha256")
			raw, err := os.ReadFile(f.env)
			if err != nil {
				t.Fatal(err)
			}
			var env sign.Envelope
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			env.PayloadType = hostile
			if resign { // a signer who holds the key chose the type
				payload, _ := base64.StdEncoding.DecodeString(env.Payload)
				m := hmac.New(sha256.New, []byte(testSecret))
				m.Write(sign.PAE(hostile, payload))
				env.Signatures[0].Sig = base64.StdEncoding.EncodeToString(m.Sum(nil))
			}
			b, _ := json.Marshal(env)
			if err := os.WriteFile(f.env, b, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"verify", "--key", f.verifyKey, f.env}, {"verify", "--json", "--key", f.verifyKey, f.env}} {
				code, out, errs := call(t, f.secrets, args...) // fails on CANARY
				if code != exitBadSignature {
					t.Errorf("%v: exit %d, want %d\n%s%s", args, code, exitBadSignature, out, errs)
				}
				if strings.ContainsAny(out+errs, "\x1b\x07") || strings.Contains(out+errs, "pwned") || strings.Contains(out+errs, `\x1b`) || strings.Contains(out+errs, `\u001b`) {
					t.Errorf("%v: the signer's text reached the output:\n%q\n%q", args, out, errs)
				}
				if resign && !strings.Contains(errs, "payload type "+untrusted.Withheld(hostile)) {
					t.Errorf("%v: stderr does not show the payload type by its digest:\n%s", args, errs)
				}
			}
		})
	}
}
