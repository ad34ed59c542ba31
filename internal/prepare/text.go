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
// trimmed query (the reference's normalize_query).
func NormalizeQuery(q string) string { return norm.NFC.String(trimQuery(q)) }

// trimQuery trims what the reference's str.strip() trims: Unicode White_Space
// (Go's unicode.IsSpace) and the four information separators U+001C-U+001F,
// which Python counts as whitespace and Go does not.
func trimQuery(q string) string {
	return strings.TrimFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// QueryDigest is the plain sha256 over the UTF-8 bytes of NormalizeQuery(q);
// keyed mode uses Hasher.Text(NormalizeQuery(q)) instead.
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
	for _, w := range strings.FieldsFunc(strings.ToLower(text), notWordRune) {
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

// notWordRune splits words: anything but a letter or a digit.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// stopWords are English function words: a question's "why", "did", "we"
// are not lexical evidence, and counting them in the admission floor made a
// plain question ("Why did we choose SQLite?") admit nothing.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about after all also am an and any are as at be been before being but by can could
	did do does doing done for from had has have having he her here hers him his how if in into is it its me might
	must my no nor not of on or our ours shall she should so some than that the their theirs them then there these
	they this those to too us was we were what when where which while who whom whose why will with would you your yours`) {
		stopWords[w] = true
	}
}

// queryTerms are the query's distinct terms without stop words; a query of
// stop words only keeps them all, so it still searches.
func queryTerms(normalized string) []string {
	all := terms(normalized, 0)
	var out []string
	for _, w := range all {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		out = all
	}
	return out[:min(len(out), maxQueryTerms)]
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
