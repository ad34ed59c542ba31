package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// secret is 32 random bytes in hex, as convert keygen --alg hmac-sha256
// writes a secret.
const secret = "e25e1fe5658ff45e067bbb2af2f58b8c6e6d0aa633c08771c418c0175ead894a"

func TestPAE(t *testing.T) {
	// The DSSE specification's example.
	got := string(PAE("http://example.com/HelloWorld", []byte("hello world")))
	if want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"; got != want {
		t.Errorf("PAE = %q, want %q", got, want)
	}
}

func keys(t *testing.T) map[string][2]*Key {
	t.Helper()
	priv, pub, id, err := GenerateEd25519()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := ParseKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ParseKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	if sk.ID() != id || pk.ID() != id || pk.CanSign() {
		t.Fatalf("ids %s %s %s, public can sign: %v", sk.ID(), pk.ID(), id, pk.CanSign())
	}
	hk, err := ParseKey([]byte(secret + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][2]*Key{Ed25519: {sk, pk}, HMACSHA256: {hk, hk}}
}

func receiptBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../golden/session/basic.receipt.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Round trip for both algorithms, and each tampering fails with its error.
func TestSignVerify(t *testing.T) {
	rec := receiptBytes(t)
	for alg, k := range keys(t) {
		signer, verifier := k[0], k[1]
		st, err := NewStatement("basic.receipt.ndjson", rec, alg)
		if err != nil {
			t.Fatal(err)
		}
		good, err := Sign(st, signer)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			tamper func(e *Envelope)
			key    *Key
			want   error
		}{
			{"round trip", func(*Envelope) {}, verifier, nil},
			{"payload type byte", func(e *Envelope) { e.PayloadType = "application/vnd.in-toto+jsoN" }, verifier, ErrBadSignature},
			{"payload type bound, not only checked", func(e *Envelope) { e.PayloadType = "text/plain" }, verifier, ErrBadSignature},
			{"signature byte", func(e *Envelope) { e.Signatures[0].Sig = flip(e.Signatures[0].Sig, 5) }, verifier, ErrBadSignature},
			{"payload byte", func(e *Envelope) { e.Payload = flip(e.Payload, 40) }, verifier, ErrBadSignature},
			{"signature not base64", func(e *Envelope) { e.Signatures[0].Sig = "%%%" }, verifier, ErrBadSignature},
			{"key id renamed", func(e *Envelope) { e.Signatures[0].KeyID = "ed25519:0000000000000000" }, verifier, ErrUnknownKey},
			{"no signatures", func(e *Envelope) { e.Signatures = nil }, verifier, ErrUnknownKey},
		}
		for _, tt := range tests {
			t.Run(alg+"/"+tt.name, func(t *testing.T) {
				e := *good
				e.Signatures = append([]Signature(nil), good.Signatures...)
				tt.tamper(&e)
				payload, err := Verify(&e, tt.key)
				if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				if err != nil {
					return
				}
				got, err := ParseStatement(payload)
				if err != nil {
					t.Fatal(err)
				}
				if got.Find(RoleSource).Name != pipeline.InputFileName(receipt.Hasher{}, "basic.jsonl") || got.Predicate.Converter != "session" || got.Predicate.Lines != 6 {
					t.Errorf("statement = %+v", got)
				}
				if a := got.Predicate.Algorithm; alg == HMACSHA256 && a != HMACCanonical || alg == Ed25519 && a != Ed25519 {
					t.Errorf("algorithm = %s", a)
				}
			})
		}
	}
}

// A key signed by another key of the same algorithm is an unknown key; a
// forged signature under the right key id is a bad signature.
func TestOtherKey(t *testing.T) {
	rec := receiptBytes(t)
	a, b := keys(t), keys(t)
	st, _ := NewStatement("r", rec, Ed25519)
	env, err := Sign(st, a[Ed25519][0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(env, b[Ed25519][1]); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("other key: %v", err)
	}
	other, _ := Sign(st, b[Ed25519][0])
	env.Signatures[0].Sig = other.Signatures[0].Sig
	if _, err := Verify(env, a[Ed25519][1]); !errors.Is(err, ErrBadSignature) {
		t.Errorf("forged: %v", err)
	}
	if _, err := Sign(st, a[Ed25519][1]); err == nil {
		t.Error("a public key signed")
	}
}

// An hmac payload must be canonical: the same statement, re-serialized
// with other whitespace and signed correctly, is refused.
func TestHMACCanonical(t *testing.T) {
	k, _ := ParseKey([]byte(secret))
	st, _ := NewStatement("r", receiptBytes(t), HMACSHA256)
	env, _ := Sign(st, k)
	p, _ := base64.StdEncoding.DecodeString(env.Payload)
	p = append([]byte(" "), p...)
	env.Payload = base64.StdEncoding.EncodeToString(p)
	env.Signatures[0].Sig = base64.StdEncoding.EncodeToString(k.sign(PAE(PayloadType, p)))
	if _, err := Verify(env, k); err == nil || !strings.Contains(err.Error(), "canonical") {
		t.Errorf("err = %v", err)
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		name, data, err string
	}{
		{"short secret", "CANARY-short", "not 32+ random bytes"},
		{"a sentence", "CANARY the quick brown fox jumps over the lazy dog", "not 32+ random bytes"},
		{"a passphrase that is base64", "CorrectHorseBatteryStapleCorrectHorseBatteryStaple", "not 32+ random bytes"},
		{"bytes 00..1f in hex", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "not 32+ random bytes"},
		{"raw bytes", "\x8a\x13\xf0\x5c\x99\x02\xee\x41\x7b\xd3\x60\x2f\xa8\x1c\x55\xc7\x0e\xb9\x34\x6d\xf1\x88\x27\x4a\x9e\x03\xd6\x71\xbc\x15\x62\xef", "not 32+ random bytes"},
		{"other PEM", "-----BEGIN CERTIFICATE-----\nQ0FOQVJZ\n-----END CERTIFICATE-----\n", "unsupported PEM block"},
		{"broken private key", "-----BEGIN PRIVATE KEY-----\nQ0FOQVJZ\n-----END PRIVATE KEY-----\n", "PKCS#8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseKey([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "CANARY") || strings.Contains(err.Error(), "Q0FOQVJZ") {
				t.Errorf("err = %v", err)
			}
		})
	}
	k, _ := ParseKey([]byte(secret))
	for _, s := range []string{k.ID(), fmt.Sprint(k), fmt.Sprintf("%v %+v %#v", k, k, k)} {
		if strings.Contains(s, secret[:16]) || !strings.HasPrefix(s, "hmac-sha256:") {
			t.Errorf("key printed as %q", s)
		}
	}
}

// TestHMACKeyID: an hmac key id is a keyed derivation, not the v1 plain
// digest that let anyone confirm a guessed secret offline; envelopes
// signed under the v1 id still verify with the secret, and an id made
// without the secret matches nothing.
func TestHMACKeyID(t *testing.T) {
	k, err := ParseKey([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	v1 := sha256.Sum256(append([]byte("convert.sign-key-id.v1\x00"), secret...))
	legacy := HMACSHA256 + ":" + hex.EncodeToString(v1[:8])
	if k.ID() == legacy || len(k.ID()) != len(legacy) {
		t.Fatalf("key id %q is the v1 digest or not 16 hex digits", k.ID())
	}
	guess := sha256.Sum256([]byte("convert.sign-key-id.v2" + secret)) // a derivation without the key
	if strings.Contains(k.ID(), hex.EncodeToString(guess[:8])) {
		t.Error("the key id is a plain digest")
	}
	st, _ := NewStatement("r", receiptBytes(t), HMACSHA256)
	env, err := Sign(st, k)
	if err != nil || env.Signatures[0].KeyID != k.ID() {
		t.Fatalf("sign: %v %+v", err, env)
	}
	for _, tt := range []struct {
		name, id string
		want     error
	}{
		{"v2 id", k.ID(), nil},
		{"v1 id of an old envelope", legacy, nil},
		{"another id", HMACSHA256 + ":0123456789abcdef", ErrUnknownKey},
	} {
		env.Signatures[0].KeyID = tt.id
		if _, err := Verify(env, k); !errors.Is(err, tt.want) && (err != nil || tt.want != nil) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestNewStatementErrors(t *testing.T) {
	rec := receiptBytes(t)
	lines := bytes.Split(bytes.TrimRight(rec, "\n"), []byte{'\n'})
	for name, data := range map[string][]byte{
		"empty":        nil,
		"no summary":   bytes.Join(lines[:len(lines)-1], []byte{'\n'}),
		"not json":     []byte("CANARY\n"),
		"bad digest":   bytes.Replace(rec, []byte(`"convert.input.sha256":"sha256:`), []byte(`"convert.input.sha256":"sha1:`), 1),
		"other schema": bytes.Replace(rec, []byte(`"convert.receipt.v1","converter":"session","source_line":0`), []byte(`"x","converter":"session","source_line":0`), 1),
	} {
		if _, err := NewStatement("r", data, Ed25519); err == nil || strings.Contains(err.Error(), "CANARY") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// flip changes one base64 character of s at i into another valid one.
func flip(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
