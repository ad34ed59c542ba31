package leak

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The values below are fake: realistic shapes with made-up bodies.

func TestSecretKindFindsRealisticShapes(t *testing.T) {
	for _, tc := range []struct{ in, kind string }{
		{"sk-proj-7hG2kLq9Zx4TbW1mNvR8sYp3DcAa", "api_key"},
		{"key sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6", "anthropic_key"},
		{"sk-4fQ9pLm2Zx7Tb1Wn8Rv3Yc6Ds0Ae5Hg", "api_key"},
		{"sk_live_51HxTq9ZlmN4pQr8sT2vW", "stripe_key"},
		{"rk_test_9aBcD3eFgH", "stripe_key"},
		{"ghp_0123456789abcdefABCDEF0123456789abcd", "github_token"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_token"},
		{"AKIAIOSFODNN7EXAMPLE", "aws_access_key"},
		{"xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "slack_token"},
		{"AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "google_api_key"},
		{"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk", "jwt"},
		{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "stripe_webhook_secret"},
		{"glpat-xYz12AbC34dEf56GhI78jK", "gitlab_token"},
		{"npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_token"},
		{"hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "huggingface_token"},
		{"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", "sendgrid_key"},
		{"ya29.a0AfH6SMBx1y2z3A4b5C6d7E8f9G0h", "google_oauth_token"},
		{"dapi0123456789abcdef0123456789abcdef", "databricks_token"},
		{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "slack_webhook"},
		{"postgres://billing:hunter2pw@db.internal:5432/prod", "url_credentials"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----", "pem_block"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----", "pem_block"},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----", "pem_block"},
		{"Authorization: Bearer abc.def-123456", "bearer"},
		{"GITHUB_TOKEN=abcd1234efgh", "secret_assignment"},
		{"client_secret: 'x9f2k1m3'", "secret_assignment"},
		{"DefaultEndpointsProtocol=https;AccountKey=q1w2e3r4t5y6u7i8o9p0", "secret_assignment"},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "secret_assignment"},
	} {
		if got := SecretKind(tc.in); got != tc.kind {
			t.Errorf("SecretKind(%.24q...) = %q, want %q", tc.in, got, tc.kind)
		}
	}
}

// Our own outputs must never look like secrets: full digests, schema keys,
// categorical vocabulary (secret types among them), ids and buckets.
func TestSecretKindIgnoresOwnVocabulary(t *testing.T) {
	sum := sha256.Sum256([]byte("anything"))
	digest := hex.EncodeToString(sum[:])
	for _, s := range []string{
		"sha256:" + digest,
		"hmac-sha256:" + digest,
		"sha256:" + strings.Repeat("0", 64),
		"session:sha256:" + digest,
		"security.finding.secret_value_hash",
		"privacy.raw_secret_value_recorded",
		"privacy.raw_secret_values_recorded",
		"security.secret_scanning.secret_type",
		"security.secret_scanning.bypass_allowed",
		"mcp.tool.definition_token_count_bucket",
		"cli.prompt.token_count_bucket",
		"subagent.context.remaining_token_bucket",
		"github_personal_access_token",
		"stripe_webhook_secret",
		"openai_api_key",
		"json_web_token",
		"rsa_private_key",
		"receipt_proves_scan_findings_policy_and_clean_rescan_not_secret_revocation_completion",
		"org-default-block-with-documented-bypass",
		"sess-scan-0604",
		"task-runner-subagent-0001",
		"risk-assessment-pipeline-stage",
		"under_10k", "under_200k", "10k_plus",
		"agent.session.security.secret_scanning",
		"convert.leak_check.status",
	} {
		if k := SecretKind(s); k != "" {
			t.Errorf("SecretKind(%q) = %q, want no match", s, k)
		}
	}
}

// secretExamples are one fake but well-formed token per family (bodies
// made up, shapes as the issuers document them).
var secretExamples = map[string]string{
	"anthropic_key":         "sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6Lm9Np2Qr5St8Vw1Yz4Bc7",
	"api_key":               "sk-proj-7hG2kLq9Zx4TbW1mNvR8sYp3DcAa",
	"stripe_key":            "sk_live_51HxTq9ZlmN4pQr8sT2vW",
	"github_token":          "ghp_0123456789abcdefABCDEF0123456789abcd",
	"aws_access_key":        "AKIAQ7EXAMPLEKEY2024",
	"slack_token":           "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
	"slack_app_token":       "xapp-1-A0123BCDEFG-1234567890123-0123456789abcdef0123456789abcdef",
	"google_api_key":        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
	"jwt":                   "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"stripe_webhook_secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	"gitlab_token":          "glpat-xYz12AbC34dEf56GhI78jK",
	"npm_token":             "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
	"pypi_token":            "pypi-AgEIcHlwaS5vcmcCJGE4ZjMwZjI3LWUxZTgtNGNlNy05YmU1LWVlNjI1ZjQ0YjY0MwACKlsz",
	"huggingface_token":     "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
	"sendgrid_key":          "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",
	"google_oauth_token":    "ya29.a0AfH6SMBx1y2z3A4b5C6d7E8f9G0h",
	"databricks_token":      "dapi0123456789abcdef0123456789abcdef",
	"slack_webhook":         "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	"discord_webhook":       "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	"twilio_key":            "SK0123456789abcdef0123456789abcdef",
	"shopify_token":         "shpat_0123456789abcdef0123456789abcdef",
	"digitalocean_token":    "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	"age_secret_key":        "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS",
	"doppler_token":         "dp.pt.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd",
	"linear_key":            "lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd",
	"postman_key":           "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
	"pulumi_token":          "pul-0123456789abcdef0123456789abcdef01234567",
	"planetscale_token":     "pscale_tkn_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	"grafana_token":         "glsa_AbCdEfGhIjKlMnOpQrStUvWxYz012345_0123abcd",
	"new_relic_key":         "NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZA",
	"sentry_token":          "sntryu_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	"openai_admin_or_groq":  "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh",
	"azure_ad_secret":       "abc8Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456",
	"url_credentials":       "postgres://billing:hunter2pw@db.internal:5432/prod",
	"pem_block":             "-----BEGIN RSA PRIVATE KEY-----",
	"bearer":                "Bearer abc.def-123456",
	"hashicorp_token":       "hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQr",
	"atlassian_token":       "ATATT3xFfGF0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrSt=0123ABCD",
	"private_key_material":  "-----begin encrypted private key-----",
	"secret_assignment":     "GITHUB_TOKEN=abcd1234efgh",
}

// TestSecretKindEveryPlace runs every family's example through every place
// a token can stand in an output string: bare, glued to a word by an
// underscore or a digit (where \b would fail), quoted, assigned, in a
// query string, in a path, and followed by more text.
func TestSecretKindEveryPlace(t *testing.T) {
	places := []string{"%s", "x_%s", "key_%s", "id_%s", "a1%s", "9%s", `"%s"`, "k=%s", "?token=%s&x=1", "/v1/%s/x", "%s trailing words", "(%s)", "{\"v\":\"%s\"}"}
	for _, p := range secretPatterns {
		ex, ok := secretExamples[p.name]
		if !ok {
			t.Errorf("family %s has no example", p.name)
			continue
		}
		for _, place := range places {
			s := strings.Replace(place, "%s", ex, 1)
			if SecretKind(s) == "" {
				t.Errorf("%s: %q not found", p.name, s)
			}
			// The pattern's own prefilter admits it: one of its trigrams
			// is in the text the pattern matches (not merely elsewhere in
			// the place), or its scan says yes.
			i := patternIndex(p.name)
			m := secretRegexp(i).FindString(s)
			if m == "" {
				t.Errorf("%s: its pattern does not match %q", p.name, s)
			} else if !ownFilterAdmits(p, m) {
				t.Errorf("%s: none of its trigrams %q is in its match %q", p.name, p.trigrams, m)
			}
			if secretCandidates(s)&(1<<i) == 0 {
				t.Errorf("%s: the prefilter does not name it a candidate for %q", p.name, s)
			}
		}
	}
	for name := range secretExamples {
		found := false
		for _, p := range secretPatterns {
			found = found || p.name == name
		}
		if !found {
			t.Errorf("example for unknown family %s", name)
		}
	}
}

func patternIndex(name string) int {
	for i, p := range secretPatterns {
		if p.name == name {
			return i
		}
	}
	return -1
}

// ownFilterAdmits is the prefilter of pattern p alone, written plainly: s
// holds one of its trigrams (ASCII case folded, the two non-ASCII folds of
// k and s spelled as those letters) or its scan admits s.
func ownFilterAdmits(p secretPattern, s string) bool {
	if p.scan != nil && p.scan(s) {
		return true
	}
	folded := strings.Map(func(r rune) rune {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		case r == '\u212a':
			return 'k'
		case r == '\u017f':
			return 's'
		}
		return r
	}, s)
	for _, t := range strings.Fields(p.trigrams) {
		if strings.Contains(folded, t) {
			return true
		}
	}
	return false
}

// TestSecretTrigrams: every pattern has a prefilter of its own, trigrams
// (three bytes, lower case, since the input is folded before they are
// compared) or, where no trigram is safe, a scan; the candidate set fits
// in a uint64.
func TestSecretTrigrams(t *testing.T) {
	if len(secretPatterns) > 64 {
		t.Fatalf("%d patterns: the candidate set holds 64", len(secretPatterns))
	}
	names := map[string]bool{}
	for _, p := range secretPatterns {
		if names[p.name] {
			t.Errorf("%s: two patterns of that name", p.name)
		}
		names[p.name] = true
		tris := strings.Fields(p.trigrams)
		if len(tris) == 0 && p.scan == nil {
			t.Errorf("%s: no trigrams (and no scan): the prefilter would never name it", p.name)
		}
		seen := map[string]bool{}
		for _, tr := range tris {
			if len(tr) != 3 || strings.ToLower(tr) != tr || seen[tr] {
				t.Errorf("%s: trigram %q is not three distinct lower-case bytes", p.name, tr)
			}
			seen[tr] = true
		}
	}
}

// TestTwilioScan: Twilio's keys have no safe trigram ("ac" and a hex digit
// are in half the UUIDs), so twilioLike stands in: SK or AC, upper case as
// Twilio writes them (the pattern is case-sensitive), then 32 hex digits.
func TestTwilioScan(t *testing.T) {
	hex32 := "0123456789abcdef0123456789ABCDEF"
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"SK" + hex32, true},
		{"AC" + hex32, true},
		{"key=AC" + hex32 + " and more", true},
		{"sk" + hex32, false},
		{"Ac" + hex32, false},
		{"SK" + hex32[:31], false},
		{"SK" + hex32[:31] + "g", false},
		{"uuid 9ac0b8e2-1d3f-4c5a-8e7b-6f1a2b3c4d5e", false},
	} {
		if got := twilioLike(tc.in); got != tc.want {
			t.Errorf("twilioLike(%q) = %v, want %v", tc.in, got, tc.want)
		}
		i := patternIndex("twilio_key")
		if got := secretCandidates(tc.in)&(1<<i) != 0; got != tc.want {
			t.Errorf("twilio_key a candidate for %q: %v, want %v", tc.in, got, tc.want)
		}
		if matched := secretRegexp(i).MatchString(tc.in); matched && !tc.want {
			t.Errorf("twilio_key matches %q, which twilioLike refuses", tc.in)
		}
	}
}
