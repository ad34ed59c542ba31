package keycheck

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// TestRandomKeysPass: keys as keygen and openssl rand write them pass
// (20,000 of each: the floors refuse about one random key in millions,
// base64 of letters only about one in 8,000).
func TestRandomKeysPass(t *testing.T) {
	buf := make([]byte, 32)
	refused := map[string]int{}
	for range 20000 {
		rand.Read(buf)
		for enc, text := range map[string]string{
			"hex": hex.EncodeToString(buf), "base64": base64.StdEncoding.EncodeToString(buf),
			"base64url": base64.RawURLEncoding.EncodeToString(buf),
		} {
			if _, err := Decode([]byte(text + "\n")); err != nil {
				refused[enc]++
			}
		}
	}
	if refused["hex"] > 0 || refused["base64"] > 10 || refused["base64url"] > 10 {
		t.Errorf("random keys refused: %v of 20,000 each", refused)
	}
}

// TestWeakKeysRefused: what a guess list holds is refused, judged on the
// text as given and on its bytes; the error quotes none of it.
func TestWeakKeysRefused(t *testing.T) {
	counter := make([]byte, 32)
	for i := range counter {
		counter[i] = byte(i)
	}
	for _, tt := range []struct{ name, text string }{
		{"a passphrase that is base64", "CorrectHorseBatteryStapleCorrectHorseBatteryStaple"},
		{"a passphrase of letters", "CANARYHorseBatteryStapleIsMyTeamKeyForAcmePay"},
		{"words with dashes (base64url)", "CANARY-correct-horse-battery-staple-xxxxxx"},
		{"a sentence", "CANARY the team secret for acme payments 2026"},
		{"hex of 00..1f", hex.EncodeToString(counter)},
		{"base64 of 00..1f", base64.StdEncoding.EncodeToString(counter)},
		{"raw 00..1f", string(counter)},
		{"a repeated hex word", strings.Repeat("c0ffee42", 8)},
		{"16 bytes", hex.EncodeToString(counter[:16])},
		{"base64 of a phrase", base64.StdEncoding.EncodeToString([]byte("CANARY password password password password"))},
		{"empty", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.text))
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "CANARY") || (len(tt.text) > 8 && strings.Contains(err.Error(), tt.text[:8])) {
				t.Errorf("the error quotes the key: %v", err)
			}
		})
	}
	// The documented limit: a key derived from a word looks random.
	w := sha256.Sum256([]byte("acme-payments"))
	if _, err := Decode([]byte(hex.EncodeToString(w[:]))); err != nil {
		t.Errorf("the hex sha256 of a word is refused (%v): the limit the docs state is out of date", err)
	}
}

// TestIDNeedsTheKey: an id is an HMAC under the key: two keys, two ids;
// no plain digest of the key is it.
func TestIDNeedsTheKey(t *testing.T) {
	a, b := make([]byte, 32), make([]byte, 32)
	rand.Read(a)
	rand.Read(b)
	if ID(a, "l") == ID(b, "l") || ID(a, "l") == ID(a, "m") || len(ID(a, "l")) != 16 {
		t.Error("ids do not tell keys or labels apart")
	}
	plain := sha256.Sum256(append([]byte("l"), a...))
	if ID(a, "l") == hex.EncodeToString(plain[:8]) {
		t.Error("the id is a plain digest")
	}
}
