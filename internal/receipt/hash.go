package receipt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"math"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/gowebpki/jcs"
	"golang.org/x/text/unicode/norm"
)

// CanonicalTextForm names the text canonical form that Hasher.CanonicalText
// applies, so a receipt can say which form a canonical digest is over.
const (
	CanonicalTextForm  = "otel.context.source.nfc_lf.v1_candidate"
	CanonicalTextSteps = "utf8,unicode_nfc,crlf_to_lf"
)

// Hasher makes every digest a receipt carries. The zero value writes plain
// "sha256:<hex>" digests, reproducible by anyone holding the input. With a key
// it writes "hmac-sha256:<hex>" digests, so low-entropy values (tool names,
// paths, short commands) cannot be guessed back from a shared receipt; the
// receipt records KeyID, never the key.
type Hasher struct {
	key   []byte
	keyID string
}

// NewKeyed returns a Hasher keyed with the contents of a key file. A key is
// 32 or more random bytes, written as hex or base64 (what `convert keygen
// --alg hash` writes) or as raw bytes. A passphrase, a short key or one
// with little entropy is refused: keyed mode exists so that a guess list
// cannot reverse a digest, and a guessable key gives that up (anyone who
// guesses it can hash every guess, and the receipt's own digests confirm it).
func NewKeyed(text []byte) (Hasher, error) {
	key, err := decodeKey(text)
	if err != nil {
		return Hasher{}, err
	}
	return Hasher{key: key, keyID: keyID(key)}, nil
}

// MinKeyBytes is the shortest hash key accepted, after decoding.
const MinKeyBytes = 32

// minKeyEntropy is the least Shannon entropy, in bits per byte, of a key's
// bytes: 32 random bytes average about 4.8 (at most 5), and falling under
// 4.2 happens to about one random key in ten million; text keys sit near 3.
const minKeyEntropy = 4.2

var errWeakKey = errors.New("hash key is too weak: use 32+ random bytes (make one with: convert keygen --alg hash)")

func decodeKey(text []byte) ([]byte, error) {
	t := strings.TrimSpace(string(text))
	var key []byte
	if b, err := hex.DecodeString(t); err == nil {
		key = b
	} else if b, err := base64.StdEncoding.DecodeString(t); err == nil {
		key = b
	} else if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(t, "=")); err == nil {
		key = b
	} else if !isText(text) {
		key = text // raw random bytes
	} else {
		return nil, errWeakKey // a passphrase
	}
	if len(key) < MinKeyBytes || entropy(key) < minKeyEntropy {
		return nil, errWeakKey
	}
	return append([]byte(nil), key...), nil
}

// isText reports whether b is printable ASCII text (and white space).
func isText(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// entropy is the empirical Shannon entropy of b, in bits per byte.
func entropy(b []byte) float64 {
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

// keyID names a key without being an oracle for it: it is an HMAC under
// the key itself, so computing it needs the key, and with 32+ random bytes
// enforced there is nothing to guess.
func keyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("convert.hash-key-id.v2"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// Mode is "sha256" or "hmac-sha256".
func (h Hasher) Mode() string {
	if h.key != nil {
		return "hmac-sha256"
	}
	return "sha256"
}

// KeyID identifies the key without revealing it; "" in plain mode.
func (h Hasher) KeyID() string { return h.keyID }

func (h Hasher) new() hash.Hash {
	if h.key != nil {
		return hmac.New(sha256.New, h.key)
	}
	return sha256.New()
}

func (h Hasher) format(sum []byte) string {
	var b strings.Builder
	b.Grow(len("hmac-sha256:") + 64)
	b.WriteString(h.Mode())
	b.WriteByte(':')
	b.WriteString(hex.EncodeToString(sum))
	return b.String()
}

// Bytes digests raw bytes.
func (h Hasher) Bytes(p []byte) string {
	d := h.new()
	d.Write(p)
	return h.format(d.Sum(nil))
}

// Text digests the UTF-8 bytes of s exactly as given.
func (h Hasher) Text(s string) string { return h.Bytes([]byte(s)) }

// CanonicalText digests s after CanonicalTextSteps: Unicode NFC, then CRLF and
// lone CR to LF. Two renders that differ only in those ways get one digest.
func (h Hasher) CanonicalText(s string) string { return h.Text(CanonicalizeText(s)) }

// CanonicalizeText applies CanonicalTextSteps.
func CanonicalizeText(s string) string {
	s = norm.NFC.String(s)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// JSON digests a JSON document over its RFC 8785 (JCS) canonical bytes, so
// key order and number spelling do not change the digest.
func (h Hasher) JSON(doc []byte) (string, error) {
	if jsonscan.Valid(doc) {
		bp := canonicalBufs.Get().(*[]byte)
		c, ok := canonical((*bp)[:0], doc)
		if ok {
			d := h.Bytes(c)
			*bp = c
			canonicalBufs.Put(bp)
			return d, nil
		}
		canonicalBufs.Put(bp)
	}
	c, err := jcs.Transform(doc)
	if err != nil {
		return "", err
	}
	return h.Bytes(c), nil
}

// IsDigest reports whether s has the shape of a digest this package writes.
func IsDigest(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, "sha256:"):
		rest = s[len("sha256:"):]
	case strings.HasPrefix(s, "hmac-sha256:"):
		rest = s[len("hmac-sha256:"):]
	default:
		return false
	}
	if len(rest) != 64 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// FileDigest is the plain sha256 of a whole input file. It is never keyed: it
// binds a receipt to its source, and whole files are not guessable.
func FileDigest(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }

// canonicalBufs hold canonical's output between digests.
var canonicalBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}
