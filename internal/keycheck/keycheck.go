// Package keycheck judges the text of a key file (a --hash-key-file key, an
// hmac signing secret) before any key is made from it. A key is 32 or more
// random bytes written as hex or base64, as convert keygen writes them. The
// text is judged as given (a passphrase is refused whatever it decodes to)
// and so are the bytes it decodes to.
//
// The limit: a key derived from a guessable word (the hex sha256 of a team
// name) looks random both ways, and no test of the text can tell it from a
// real key. convert keygen is the way to make a key.
package keycheck

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"strings"
)

// MinBytes is the shortest key, decoded.
const MinBytes = 32

// The floors, in bits per character or byte, below which a text or its
// bytes are not random. Each sits under the least value a million random
// 32-byte keys showed (hex text 3.35, base64 text 4.11, bytes 4.29), and
// over what passphrases give (a phrase of words near 3.5 either way).
const (
	minHexText    = 3.25
	minBase64Text = 4.0
	minBytes      = 4.2
)

// ErrWeak is the answer for every key that is refused; it never quotes the key.
var ErrWeak = errors.New("not 32+ random bytes written as hex or base64 (a passphrase, a short or patterned key, or raw bytes)")

// Decode judges text and returns the key bytes it encodes.
func Decode(text []byte) ([]byte, error) {
	t := strings.TrimSpace(string(text))
	if t == "" || strings.ContainsAny(t, " \t\r\n") {
		return nil, ErrWeak
	}
	var key []byte
	floor := minBase64Text
	if b, err := hex.DecodeString(t); err == nil {
		key, floor = b, minHexText
	} else if b, err := base64.StdEncoding.DecodeString(t); err == nil {
		key = b
	} else if b, err := base64.RawStdEncoding.DecodeString(t); err == nil {
		key = b
	} else if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(t, "=")); err == nil {
		key = b
	} else {
		return nil, ErrWeak // not an encoding: a passphrase, or raw bytes
	}
	body := strings.TrimRight(t, "=")
	if floor == minBase64Text && lettersOnly(body) {
		// A phrase of words: random base64 of 43 characters holds a digit
		// or a sign but for about one key in 8,000 (make another).
		return nil, ErrWeak
	}
	if len(key) < MinBytes || Entropy([]byte(body)) < floor || Entropy(key) < minBytes ||
		repeats([]byte(body), 8) || repeats(key, 6) || stepped(key) {
		return nil, ErrWeak
	}
	return key, nil
}

func lettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// Entropy is the empirical Shannon entropy of b, in bits per byte.
func Entropy(b []byte) float64 {
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	e := 0.0
	for _, k := range n {
		if k > 0 {
			p := float64(k) / float64(len(b))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// repeats reports whether some run of n bytes occurs twice in b (a phrase
// said twice): random text does so about once in millions of keys at n 8.
func repeats(b []byte, n int) bool {
	seen := map[string]bool{}
	for i := 0; i+n <= len(b); i++ {
		s := string(b[i : i+n])
		if seen[s] {
			return true
		}
		seen[s] = true
	}
	return false
}

// stepped reports whether 8 or more bytes go up or down by the same step
// as the byte before (00 01 02 ..., a counter): random bytes do so about
// once in ten for one byte, never for eight.
func stepped(b []byte) bool {
	same := 0
	for i := 2; i < len(b); i++ {
		if b[i]-b[i-1] == b[i-1]-b[i-2] {
			same++
		}
	}
	return same >= 8
}

// ID is a key id: an HMAC under the key of a label, 16 hex digits. It
// names the key to someone who holds it and confirms nothing to anyone
// else: computing it needs the key.
func ID(key []byte, label string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// Equal compares two key ids in constant time.
func Equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
