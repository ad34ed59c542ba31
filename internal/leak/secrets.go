package leak

import (
	"regexp"
	"strings"
)

// secretPatterns are token shapes that must never appear in any output,
// whatever the input said about them: a pass-through field that carries one
// still fails the check.
var secretPatterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{"api_key", regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`)},
	{"stripe_key", regexp.MustCompile(`\b[rsp]k_(?:live|test)_[A-Za-z0-9_]{6,}`)},
	{"github_token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	{"aws_access_key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"slack_token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"google_api_key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`)},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{"stripe_webhook_secret", regexp.MustCompile(`\bwhsec_[A-Za-z0-9_]{12,}`)},
	{"gitlab_token", regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}`)},
	{"npm_token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{"huggingface_token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"sendgrid_key", regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
	{"google_oauth_token", regexp.MustCompile(`\bya29\.[A-Za-z0-9_-]{20,}`)},
	{"databricks_token", regexp.MustCompile(`\bdapi[0-9a-f]{32}\b`)},
	{"slack_webhook", regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/-]{16,}`)},
	{"url_credentials", regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@"']+:[^\s/@"']{3,}@`)},
	{"pem_block", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE)[A-Z ]*-----`)},
	{"bearer", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}`)},
	{"secret_assignment", regexp.MustCompile(`(?i)\b[a-z0-9_]*(?:token|secret|password|passwd|api_key|apikey|access_key|accesskey|accountkey|private_key)\s*[=:]\s*["']?[^\s"']{4,}`)},
}

// SecretKind returns the name of the first secret shape found in s, or "".
func SecretKind(s string) string {
	if !anySecret.MatchString(s) {
		return "" // one pass over s instead of one per shape
	}
	for _, p := range secretPatterns {
		if p.re.MatchString(s) {
			return p.name
		}
	}
	return ""
}

// anySecret is every shape in one alternation.
var anySecret = func() *regexp.Regexp {
	parts := make([]string, len(secretPatterns))
	for i, p := range secretPatterns {
		parts[i] = "(?:" + p.re.String() + ")"
	}
	return regexp.MustCompile(strings.Join(parts, "|"))
}()
