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
		{"key sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6", "api_key"},
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
