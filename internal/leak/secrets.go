package leak

import (
	"math/bits"
	"regexp"
	"strings"
	"sync"
)

// secretPatterns are token shapes that must never appear in any output,
// whatever the input said about them: a pass-through field that carries one
// still fails the check.
var secretPatterns = []secretPattern{
	// No pattern starts with \b: a leading word character (x_sk-ant-…,
	// key_ghp_…, id_AKIA…) must not hide a token, so a token prefix only
	// needs a non-letter (or the start) before it (see tok). The families follow
	// gitleaks' rule set (github.com/gitleaks/gitleaks, config/gitleaks.toml);
	// TestSecretKindEveryPlace runs each family's examples through every place
	// a token can stand.
	//
	// Each pattern's trigrams are three-byte pieces (ASCII lower case) of
	// which every match of it holds at least one, compared with the input
	// folded: pick one from a literal every alternative of the pattern
	// spells out (the prefix). TestSecretTrigrams checks their form and that
	// each family's examples hold one in every place.
	{"anthropic_key", tok(`sk-ant-(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{16,}`), "sk-", nil},
	{"api_key", tok(`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`), "sk-", nil},
	{"stripe_key", tok(`[rsp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}`), "sk_ rk_ pk_", nil},
	{"github_token", tok(`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`), "ghp gho ghu ghs ghr b_p", nil},
	{"aws_access_key", tok(`(?i:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}`), "a3t aki asi abi acc agp aid aro aip anp anv apk", nil},
	{"slack_token", tok(`xox[abposre]-[A-Za-z0-9-]{10,}`), "xox", nil},
	{"slack_app_token", tok(`(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`), "xap", nil},
	{"google_api_key", tok(`AIza[0-9A-Za-z_-]{35}`), "aiz", nil},
	{"jwt", tok(`ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), ".ey", nil},
	{"stripe_webhook_secret", tok(`whsec_[A-Za-z0-9_]{20,}`), "whs", nil},
	{"gitlab_token", tok(`gl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|agent|oas)-[A-Za-z0-9_-]{20,}`), "glp gld glr glc gli gls glf gla glo", nil},
	{"npm_token", tok(`npm_[A-Za-z0-9]{36}`), "npm", nil},
	{"pypi_token", tok(`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`), "pyp", nil},
	{"huggingface_token", tok(`(?:hf_|api_org_)[A-Za-z0-9]{30,}`), "hf_ rg_", nil},
	{"sendgrid_key", tok(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), "sg.", nil},
	{"google_oauth_token", tok(`ya29\.[A-Za-z0-9_-]{20,}`), "ya2", nil},
	{"databricks_token", tok(`dapi[0-9a-f]{32}`), "dap", nil},
	{"slack_webhook", `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{16,}`, "ks.", nil},
	{"discord_webhook", `discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}`, "ebh", nil},
	// Twilio's SK/AC + hex has no safe trigram (folded, "ac" and a hex digit
	// is in half the UUIDs and ids): twilioLike stands in.
	{name: "twilio_key", expr: tok(`(?:SK|AC)[0-9a-fA-F]{32}`), scan: twilioLike},
	{"shopify_token", tok(`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), "shp", nil},
	{"digitalocean_token", tok(`do[opr]_v1_[a-f0-9]{64}`), "_v1", nil},
	{"age_secret_key", tok(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`), "-ke", nil},
	{"doppler_token", tok(`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`), "dp.", nil},
	{"linear_key", tok(`lin_api_[A-Za-z0-9]{40}`), "_ap", nil},
	{"postman_key", tok(`PMAK-[a-f0-9]{24}-[a-f0-9]{34}`), "pma", nil},
	{"pulumi_token", tok(`pul-[a-f0-9]{40}`), "ul-", nil},
	{"planetscale_token", tok(`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}`), "psc", nil},
	{"grafana_token", tok(`(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})`), "glc gls", nil},
	{"hashicorp_token", tok(`(?:hvs\.[A-Za-z0-9_-]{90,}|hvb\.[A-Za-z0-9_-]{138,}|[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9=_-]{60,})`), "hvs hvb asv", nil},
	{"new_relic_key", tok(`NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}`), "nra nrj nri", nil},
	{"sentry_token", tok(`(?:sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})`), "snt", nil},
	{"openai_admin_or_groq", tok(`(?:gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,}|pplx-[A-Za-z0-9]{40,})`), "gsk xai ppl", nil},
	{"atlassian_token", tok(`ATATT3[A-Za-z0-9_=-]{100,}`), "tt3", nil},
	{"azure_ad_secret", `[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`, "0q~ 1q~ 2q~ 3q~ 4q~ 5q~ 6q~ 7q~ 8q~ 9q~", nil},
	{"pem_block", `-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE)[A-Z ]*-----`, "-be", nil},
	{"private_key_material", `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`, "-be", nil},
	{"url_credentials", `[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@"']+:[^\s/@"']{3,}@`, "://", nil},
	{"bearer", `(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`, "bea", nil},
	{"secret_assignment", `(?i)[a-z0-9_]*(?:token|secret|password|passwd|api_key|apikey|access_key|accesskey|accountkey|private_key|client_secret)\s*[=:]\s*["']?[^\s"']{4,}`, "tok ecr ssw i_k pik cce ntk e_k", nil},
}

// secretPattern is one token shape and its prefilter.
type secretPattern struct {
	name string
	expr string // compiled on first use, alone (secretRegexp): most runs never need it
	// trigrams: space-separated three-byte pieces, one of which every match
	// holds (ASCII case folded).
	trigrams string
	// scan stands in for the trigrams of a pattern that has no safe one: it
	// reports whether s may hold a match.
	scan func(s string) bool
}

// tok is a token pattern that may follow anything but a letter: the start
// of the string, a digit, punctuation, or an underscore (which \b would
// treat as part of a word).
func tok(body string) string { return `(?:^|[^A-Za-z])(?:` + body + `)` }

// compiled holds each pattern's regular expression, compiled the first
// time the prefilter names the pattern as a candidate.
var compiled = make([]struct {
	once sync.Once
	re   *regexp.Regexp
}, len(secretPatterns))

// secretRegexp is pattern i, compiled.
func secretRegexp(i int) *regexp.Regexp {
	c := &compiled[i]
	c.once.Do(func() { c.re = regexp.MustCompile(secretPatterns[i].expr) })
	return c.re
}

// SecretKind returns the name of the first secret shape found in s, or "".
// Only the patterns the prefilter names as candidates run (a pattern that
// is not one cannot match), in table order, so the name is the first
// matching pattern's, as if every pattern ran.
func SecretKind(s string) string {
	m := secretCandidates(s)
	if m == 0 {
		return ""
	}
	// Only the candidates run, each alone: no alternation of every shape
	// goes first, since on a long string one alternation is several times
	// slower than two candidates and still slower than every candidate run
	// alone (BenchmarkSecretKind has the two-candidate case).
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if secretRegexp(i).MatchString(s) {
			return secretPatterns[i].name
		}
	}
	return ""
}

// trigramBits holds every pattern's trigrams hashed to 16 bits; trigramMask
// holds them exactly, each with the set of patterns (bit i: pattern i) that
// declare it, looked up only at the positions whose hash is set (a random
// id collides with one of about 100 hashes in 6% of the strings). scanned
// lists the patterns with a scan.
var trigramBits, trigramMask, scanned = func() (b [1 << 16 / 64]uint64, mask map[uint32]uint64, scanned []int) {
	if len(secretPatterns) > 64 {
		panic("leak: more than 64 secret patterns: the candidate set is a uint64")
	}
	mask = map[uint32]uint64{}
	for i, p := range secretPatterns {
		if p.scan != nil {
			scanned = append(scanned, i)
		}
		for _, t := range strings.Fields(p.trigrams) {
			a, b2, c := fold(t[0]), fold(t[1]), fold(t[2])
			h := trigram(a, b2, c)
			b[h/64] |= 1 << (h % 64)
			mask[uint32(a)<<16|uint32(b2)<<8|uint32(c)] |= 1 << i
		}
	}
	return b, mask, scanned
}()

func trigram(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16
}

// unicodeFold spells the two non-ASCII runes that (?i) matches to an ASCII
// letter (KELVIN SIGN for k, LONG S for s) as that letter, so that a
// pattern's trigrams are found in "TO\u212aEN=…", which (?i)token matches.
var unicodeFold = strings.NewReplacer("\u212a", "k", "\u017f", "s")

// secretCandidates is the cheap filter in front of the patterns: the set of
// patterns (bit i: pattern i) that may match s. A pattern outside it
// cannot: s holds none of its trigrams (or its scan refused s).
func secretCandidates(s string) uint64 {
	if len(s) < 10 {
		return 0 // the shortest match ("token:abcd", "a://b:ccc@") has 10 bytes
	}
	var m uint64
	for _, i := range scanned {
		if secretPatterns[i].scan(s) {
			m |= 1 << i
		}
	}
	t, high := trigramCandidates(s)
	m |= t
	// 0xC5 and 0xE2 lead the UTF-8 of LONG S and KELVIN SIGN.
	if high >= 0x80 && (strings.IndexByte(s, 0xC5) >= 0 || strings.IndexByte(s, 0xE2) >= 0) {
		t, _ = trigramCandidates(unicodeFold.Replace(s))
		m |= t
	}
	return m
}

// trigramCandidates is the set of patterns with a trigram in s (of at
// least 2 bytes), and the bitwise or of its bytes.
func trigramCandidates(s string) (m uint64, high byte) {
	high = s[0] | s[1]
	a, b := fold(s[0]), fold(s[1])
	for i := 2; i < len(s); i++ {
		high |= s[i]
		c := fold(s[i])
		if h := trigram(a, b, c); trigramBits[h/64]&(1<<(h%64)) != 0 {
			m |= trigramMask[uint32(a)<<16|uint32(b)<<8|uint32(c)]
		}
		a, b = b, c
	}
	return m, high
}

// twilioLike reports "SK" or "AC" (upper case, as Twilio writes them)
// followed by 32 hex digits.
func twilioLike(s string) bool {
	for i := 0; i+34 <= len(s); i++ {
		if (s[i] == 'S' && s[i+1] == 'K' || s[i] == 'A' && s[i+1] == 'C') && allHex(s[i+2:i+34]) {
			return true
		}
	}
	return false
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}
