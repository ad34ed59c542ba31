package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSignDefaultKey: sign with no --key uses the key keygen just wrote
// in convert's configuration folder, and says which; with none there it
// says how to make one; with two it asks which.
func TestSignDefaultKey(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", t.TempDir())
	t.Setenv(envSignKeyFile, "")
	t.Setenv(envSignKey, "")
	dir := t.TempDir()
	rec := filepath.Join(dir, "basic.receipt.ndjson")
	copyFile(t, "../../golden/session/basic.receipt.ndjson", rec)
	if code, _, errs := call(t, nil, "sign", rec); code != exitUsage || !strings.Contains(errs, "convert keygen makes one") {
		t.Fatalf("no key anywhere: exit %d: %s", code, errs)
	}
	if code, _, errs := call(t, nil, "keygen"); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	code, _, errs := call(t, nil, "sign", rec)
	if code != 0 || !strings.Contains(errs, "with the key keygen wrote") || !strings.Contains(errs, "convert-signing.key") {
		t.Fatalf("sign with keygen's key: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(rec + sigSuffix); err != nil {
		t.Errorf("no envelope: %v", err)
	}
	if code, _, errs := call(t, nil, "verify", "--key", filepath.Join(cfg, "convert", "convert-signing.pub"), rec+sigSuffix); code != 0 {
		t.Errorf("verify: exit %d: %s", code, errs)
	}
	// A tampered receipt: the message tells the two digests apart by
	// what they are of, and gives the envelope's name for it last (how
	// that name is screened is verify's printing of envelope fields).
	b, _ := os.ReadFile(rec)
	os.WriteFile(rec, append(b, '\n'), 0o644)
	code, _, errs = call(t, nil, "verify", "--key", filepath.Join(cfg, "convert", "convert-signing.pub"), rec+sigSuffix)
	if code != exitReceiptChanged || !regexp.MustCompile(`receipt changed: \S+ is sha256:[0-9a-f]{64} now; the envelope signed sha256:[0-9a-f]{64} \(a receipt it names .+\)`).MatchString(errs) {
		t.Errorf("tampered: exit %d: %s", code, errs)
	}
	os.WriteFile(rec, b, 0o644)
	if code, _, errs := call(t, nil, "keygen", "--alg", "hmac-sha256"); code != 0 {
		t.Fatalf("keygen hmac: %s", errs)
	}
	if code, _, errs := call(t, nil, "sign", rec); code != exitUsage || !strings.Contains(errs, "pass --key FILE to say which") {
		t.Errorf("two keys: exit %d: %s", code, errs)
	}
}
