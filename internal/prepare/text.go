package prepare

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormalizeQuery is the normalized query the digest covers: NFC of the
// trimmed query.
func NormalizeQuery(q string) string { return norm.NFC.String(strings.TrimSpace(q)) }

// QueryDigest is sha256 over the UTF-8 bytes of NormalizeQuery(q).
func QueryDigest(q string) string { return digest([]byte(NormalizeQuery(q))) }

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

const maxQueryTerms = 32

// terms splits text into distinct lower-case words (letters and digits), in
// first-seen order, at most limit of them (0: no limit).
func terms(text string, limit int) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// ftsQuery renders query terms as an FTS5 OR query of quoted phrases.
func ftsQuery(ts []string) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

// matched counts how many of the query terms occur as words of body.
func matched(qterms []string, body string) int {
	words := map[string]bool{}
	for _, w := range terms(body, 0) {
		words[w] = true
	}
	n := 0
	for _, t := range qterms {
		if words[t] {
			n++
		}
	}
	return n
}

// requiredMatches is the default lexical-evidence floor: half the query
// terms, rounded up, between 1 and 3.
func requiredMatches(n int) int { return min(3, max(1, (n+1)/2)) }

const embedDims = 64

// HashEmbed is the store's deterministic, model-free embedding: a signed
// feature-hashed bag of words, unit length. It is the vector channel's
// embedding for stored bodies and, through HashEmbedder, for queries.
func HashEmbed(text string) []float32 {
	v := make([]float32, embedDims)
	for _, w := range terms(text, 0) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		if x>>63 == 1 {
			v[x%embedDims]--
		} else {
			v[x%embedDims]++
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		s := float32(1 / math.Sqrt(n))
		for i := range v {
			v[i] *= s
		}
	}
	return v
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
