package receipt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/keycheck"
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
	macs  *sync.Pool // HMACs under key, reset and reused: making one per digest was most of a keyed digest's cost
}

// NewKeyed returns a Hasher keyed with the contents of a key file: 32 or
// more random bytes written as hex or base64 (what `convert keygen --alg
// hash` writes). The text is judged as given and as the bytes it decodes
// to (internal/keycheck): a passphrase, a short or patterned key, or raw
// bytes are refused, since keyed mode exists so that a guess list cannot
// reverse a digest, and a guessable key gives that up.
func NewKeyed(text []byte) (Hasher, error) {
	key, err := keycheck.Decode(text)
	if err != nil {
		return Hasher{}, fmt.Errorf("hash key: %w; make one with: convert keygen --alg hash", err)
	}
	return Hasher{key: key, keyID: keyID(key), macs: &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}, nil
}

// MinKeyBytes is the shortest hash key accepted, after decoding.
const MinKeyBytes = keycheck.MinBytes

// keyID names a key without being an oracle for it: it is an HMAC under
// the key itself, so computing it needs the key (unchanged since v2, so
// the key ids of receipts written before still match).
func keyID(key []byte) string { return keycheck.ID(key, "convert.hash-key-id.v2") }

// Mode is "sha256" or "hmac-sha256".
func (h Hasher) Mode() string {
	if h.key != nil {
		return "hmac-sha256"
	}
	return "sha256"
}

// KeyID identifies the key without revealing it; "" in plain mode.
func (h Hasher) KeyID() string { return h.keyID }

// format writes a digest as the receipts do: the mode, a colon, the
// sum in lower-case hex.
func (h Hasher) format(sum []byte) string {
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum)
	var b strings.Builder
	b.Grow(len("hmac-sha256:") + len(hx))
	b.WriteString(h.Mode())
	b.WriteByte(':')
	b.Write(hx[:2*len(sum)])
	return b.String()
}

// Bytes digests raw bytes.
func (h Hasher) Bytes(p []byte) string {
	if h.key == nil {
		sum := sha256.Sum256(p)
		return h.format(sum[:])
	}
	var mac hash.Hash
	if h.macs != nil {
		mac = h.macs.Get().(hash.Hash)
		defer h.macs.Put(mac)
		mac.Reset()
	} else {
		mac = hmac.New(sha256.New, h.key)
	}
	mac.Write(p)
	var sum [sha256.Size]byte
	return h.format(mac.Sum(sum[:0]))
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
