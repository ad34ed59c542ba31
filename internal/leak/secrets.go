package leak

import (
	"regexp"
	"strings"
	"sync"
)

// secretPatterns are token shapes that must never appear in any output,
// whatever the input said about them: a pass-through field that carries one
// still fails the check.
var secretPatterns = []struct {
	name string
	expr string // compiled on first use (secretRegexps): most runs never need them
}{
	// No pattern starts with \b: a leading word character (x_sk-ant-…,
	// key_ghp_…, id_AKIA…) must not hide a token, so a token prefix only
	// needs a non-letter (or the start) before it (see tok). The families follow
	// gitleaks' rule set (github.com/gitleaks/gitleaks, config/gitleaks.toml);
	// TestSecretKindEveryPlace runs each family's examples through every place
	// a token can stand.
	{"anthropic_key", tok(`sk-ant-(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{16,}`)},
	{"api_key", tok(`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`)},
	{"stripe_key", tok(`[rsp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}`)},
	{"github_token", tok(`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{"aws_access_key", tok(`(?i:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}`)},
	{"slack_token", tok(`xox[abposre]-[A-Za-z0-9-]{10,}`)},
	{"slack_app_token", tok(`(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`)},
	{"google_api_key", tok(`AIza[0-9A-Za-z_-]{35}`)},
	{"jwt", tok(`ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{"stripe_webhook_secret", tok(`whsec_[A-Za-z0-9_]{20,}`)},
	{"gitlab_token", tok(`gl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|agent|oas)-[A-Za-z0-9_-]{20,}`)},
	{"npm_token", tok(`npm_[A-Za-z0-9]{36}`)},
	{"pypi_token", tok(`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`)},
	{"huggingface_token", tok(`(?:hf_|api_org_)[A-Za-z0-9]{30,}`)},
	{"sendgrid_key", tok(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
	{"google_oauth_token", tok(`ya29\.[A-Za-z0-9_-]{20,}`)},
	{"databricks_token", tok(`dapi[0-9a-f]{32}`)},
	{"slack_webhook", `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{16,}`},
	{"discord_webhook", `discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}`},
	{"twilio_key", tok(`(?:SK|AC)[0-9a-fA-F]{32}`)},
	{"shopify_token", tok(`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`)},
	{"digitalocean_token", tok(`do[opr]_v1_[a-f0-9]{64}`)},
	{"age_secret_key", tok(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`)},
	{"doppler_token", tok(`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`)},
	{"linear_key", tok(`lin_api_[A-Za-z0-9]{40}`)},
	{"postman_key", tok(`PMAK-[a-f0-9]{24}-[a-f0-9]{34}`)},
	{"pulumi_token", tok(`pul-[a-f0-9]{40}`)},
	{"planetscale_token", tok(`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}`)},
	{"grafana_token", tok(`(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})`)},
	{"hashicorp_token", tok(`(?:hvs\.[A-Za-z0-9_-]{90,}|hvb\.[A-Za-z0-9_-]{138,}|[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9=_-]{60,})`)},
	{"new_relic_key", tok(`NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}`)},
	{"sentry_token", tok(`(?:sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})`)},
	{"openai_admin_or_groq", tok(`(?:gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,}|pplx-[A-Za-z0-9]{40,})`)},
	{"atlassian_token", tok(`ATATT3[A-Za-z0-9_=-]{100,}`)},
	{"azure_ad_secret", `[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`},
	{"pem_block", `-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE)[A-Z ]*-----`},
	{"private_key_material", `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`},
	{"url_credentials", `[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@"']+:[^\s/@"']{3,}@`},
	{"bearer", `(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`},
	{"secret_assignment", `(?i)[a-z0-9_]*(?:token|secret|password|passwd|api_key|apikey|access_key|accesskey|accountkey|private_key|client_secret)\s*[=:]\s*["']?[^\s"']{4,}`},
}

// tok is a token pattern that may follow anything but a letter: the start
// of the string, a digit, punctuation, or an underscore (which \b would
// treat as part of a word).
func tok(body string) string { return `(?:^|[^A-Za-z])(?:` + body + `)` }

// secretRegexps are the compiled secretPatterns, in order.
var secretRegexps = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(secretPatterns))
	for i, p := range secretPatterns {
		out[i] = regexp.MustCompile(p.expr)
	}
	return out
})

// SecretKind returns the name of the first secret shape found in s, or "".
func SecretKind(s string) string {
	if !mayHoldSecret(s) {
		return ""
	}
	// A long string is first tried against all shapes in one pass; for a
	// short one (most outputs: ids, names) running each shape is about
	// three times faster than the alternation's one pass (Go's backtracker
	// against its NFA). Either way the first shape that matches is named.
	if len(s) > 1024 && !anySecret().MatchString(s) {
		return ""
	}
	for i, re := range secretRegexps() {
		if re.MatchString(s) {
			return secretPatterns[i].name
		}
	}
	return ""
}

// anySecret is every shape in one alternation, compiled on first use.
var anySecret = sync.OnceValue(func() *regexp.Regexp {
	parts := make([]string, len(secretPatterns))
	for i, p := range secretPatterns {
		parts[i] = "(?:" + p.expr + ")"
	}
	return regexp.MustCompile(strings.Join(parts, "|"))
})

// secretTrigrams are three-byte pieces (ASCII case folded) of which every
// match of every pattern holds at least one: a string with none of them
// cannot hold a secret, and most outputs (ids, labels, digests) have none,
// so the regular expressions run on few strings. TestSecretKindEveryPlace
// proves each family's examples get past this filter.
var secretTrigrams = []string{
	"sk-", "sk_", "rk_", "pk_", "ghp", "gho", "ghu", "ghs", "ghr", "hub_pat", "akia", "asia", "abia", "acca",
	"agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka", "a3t", "xox", "xap", "aiz", ".ey", "whs", "glp",
	"gld", "glr", "glc", "gli", "gls", "glf", "glag", "gloa", "npm_", "pypi", "hf_", "org_", "sg.", "ya29", "dapi",
	"ks.s", "webh", "shpa", "shpc", "shpp", "shps", "_v1_", "-key-", "dp.", "lin_", "pmak", "pul-", "scale_",
	"hvs.", "hvb.", "atlasv", "nrak", "nrjs", "nrii", "sntr", "gsk_", "xai-", "pplx", "atatt", "0q~", "1q~", "2q~", "3q~", "4q~", "5q~", "6q~", "7q~", "8q~", "9q~", "://",
	"-----", "bearer", "token", "secret", "passw", "api_key", "apikey", "ccess_key", "ccesskey", "countkey",
	"private_key",
	// Twilio's SK/AC + hex is found by twilioLike: as folded trigrams,
	// "ac" + a hex digit is in half the UUIDs and ids.
}

// trigramBits holds the first three bytes of each secretTrigrams entry,
// hashed to 16 bits; trigramSet holds them exactly, for the few positions
// whose hash is set (a random id collides with one of 90 hashes at 6% of
// the strings, and each such string cost a run of every pattern).
var trigramBits, trigramSet = func() (b [1 << 16 / 64]uint64, set map[uint32]bool) {
	set = map[uint32]bool{}
	for _, t := range secretTrigrams {
		a, b2, c := fold(t[0]), fold(t[1]), fold(t[2])
		h := trigram(a, b2, c)
		b[h/64] |= 1 << (h % 64)
		set[uint32(a)<<16|uint32(b2)<<8|uint32(c)] = true
	}
	return b, set
}()

func trigram(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16
}

// mayHoldSecret is the cheap filter in front of the patterns.
func mayHoldSecret(s string) bool {
	if len(s) < 10 {
		return false // the shortest match ("token:abcd") has 10 bytes
	}
	if twilioLike(s) {
		return true
	}
	a, b := fold(s[0]), fold(s[1])
	for i := 2; i < len(s); i++ {
		c := fold(s[i])
		if h := trigram(a, b, c); trigramBits[h/64]&(1<<(h%64)) != 0 && trigramSet[uint32(a)<<16|uint32(b)<<8|uint32(c)] {
			return true
		}
		a, b = b, c
	}
	return false
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
