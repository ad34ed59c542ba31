package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"

	"github.com/contextreceipts/convert/internal/sign"
)

// The HMAC secret of these tests; it must never be printed.
// testSecret is 32 random bytes in hex, as keygen writes an hmac secret.
const testSecret = "aeb65080c2e7d62f23f53f6f0b4cb943a78e787ead3c26f6dfee861778319f88"

// call runs the CLI in process and fails the test if a secret or a raw
// (CANARY) value reaches stdout or stderr.
func call(t *testing.T, secrets []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"convert"}, args...), &stdout, &stderr)
	all := stdout.String() + stderr.String()
	for _, s := range append(secrets, "CANARY") {
		if strings.Contains(all, s) {
			t.Fatalf("output carries %q:\n%s", s, all)
		}
	}
	return code, stdout.String(), stderr.String()
}

// keyMaterial is what of a key file must never be printed: every base64
// line of a PEM file, or the whole secret.
func keyMaterial(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "-----") && len(l) > 8 {
			out = append(out, l)
		}
	}
	return out
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flipByte changes one byte of a file in place: the byte after the first
// occurrence of marker (or the middle byte when marker is "").
func flipByte(t *testing.T, path, marker string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := len(b) / 2
	if marker != "" {
		i = bytes.Index(b, []byte(marker)) + len(marker)
		if i < len(marker) {
			t.Fatalf("%s lacks %q", path, marker)
		}
	}
	b[i] ^= 0x01
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

type signFixture struct {
	dir, src, rec, env string
	signKey, verifyKey string
	secrets            []string
}

// setup converts a copy of the session sample, makes keys and signs the
// receipt with alg.
func setup(t *testing.T, alg string) signFixture {
	t.Helper()
	dir := t.TempDir()
	f := signFixture{dir: dir, src: filepath.Join(dir, "src", "basic.jsonl"), rec: filepath.Join(dir, "out", outName("basic", ".receipt.ndjson"))}
	f.env = f.rec + sigSuffix
	copyFile(t, "../../samples/session/basic.jsonl", f.src)
	if code, _, errs := call(t, nil, "run", "--out", filepath.Join(dir, "out"), f.src); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	switch alg {
	case "ed25519":
		if code, out, errs := call(t, nil, "keygen", "--out", filepath.Join(dir, "k")); code != 0 || !strings.Contains(out, "key id ed25519:") {
			t.Fatalf("keygen: %d %s %s", code, out, errs)
		}
		f.signKey, f.verifyKey = filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
	default:
		f.signKey = filepath.Join(dir, "team.secret")
		f.verifyKey = f.signKey
		if err := os.WriteFile(f.signKey, []byte(testSecret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.secrets = keyMaterial(t, f.signKey)
	code, out, errs := call(t, f.secrets, "sign", "--key", f.signKey, "--alg", alg, f.rec)
	if code != 0 || !strings.Contains(out, "signed ") || !strings.Contains(out, alg+":") {
		t.Fatalf("sign: %d %s %s", code, out, errs)
	}
	env, err := os.ReadFile(f.env)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Payload string }
	json.Unmarshal(env, &e)
	payload, _ := base64.StdEncoding.DecodeString(e.Payload)
	for _, s := range append(f.secrets, "CANARY") {
		if strings.Contains(string(env)+string(payload), s) {
			t.Fatalf("envelope carries %q", s)
		}
	}
	if !strings.Contains(string(payload), `"predicateType":"https://github.com/contextreceipts/convert/receipt-summary/v1"`) {
		t.Fatalf("payload: %s", payload)
	}
	return f
}

// Sign -> verify round trips, and one flipped byte of the receipt, the
// source, the payload type or the signature fails with its verdict.
func TestSignVerify(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, f signFixture)
		key    func(f signFixture) string
		exit   int
		msg    string
	}{
		{name: "valid", exit: exitOK, msg: "valid: "},
		{name: "receipt byte", tamper: func(t *testing.T, f signFixture) { flipByte(t, f.rec, "") }, exit: exitReceiptChanged, msg: "receipt changed: "},
		{name: "source byte", tamper: func(t *testing.T, f signFixture) { flipByte(t, f.src, "") }, exit: exitSourceChanged, msg: "source changed: "},
		{name: "payload type byte", tamper: func(t *testing.T, f signFixture) { flipByte(t, f.env, `"payloadType": "application/vnd.in-toto+js`) },
			exit: exitBadSignature, msg: "bad signature: "},
		{name: "signature byte", tamper: func(t *testing.T, f signFixture) { flipByte(t, f.env, `"sig": "`) }, exit: exitBadSignature, msg: "bad signature: "},
		{name: "payload byte", tamper: func(t *testing.T, f signFixture) { flipByte(t, f.env, `"payload": "eyJfdHlwZSI6Imh0dHBz`) }, exit: exitBadSignature, msg: "bad signature: "},
		{name: "unknown key", key: func(f signFixture) string {
			p := filepath.Join(f.dir, "other.secret")
			os.WriteFile(p, []byte("d300ebfe87785c73f510f47fee6cc1379a1f534ee252fa5fd101a7ee516a2147"), 0o600)
			return p
		}, exit: exitUnknownKey, msg: "unknown key: "},
		{name: "re-signed forged receipt", tamper: func(t *testing.T, f signFixture) {
			flipByte(t, f.rec, `"context.input.source.size_bucket":"under_1ki`)
			if code, _, errs := call(t, f.secrets, "sign", "--key", f.signKey, f.rec); code != 0 {
				t.Fatal(errs)
			}
		}, exit: exitNotReproducible, msg: "not reproducible: "},
	}
	for _, alg := range []string{"ed25519", "hmac-sha256"} {
		for _, tt := range tests {
			t.Run(alg+"/"+tt.name, func(t *testing.T) {
				f := setup(t, alg)
				if tt.tamper != nil {
					tt.tamper(t, f)
				}
				key := f.verifyKey
				if tt.key != nil {
					key = tt.key(f)
				}
				code, out, errs := call(t, f.secrets, "verify", "--key", key, "--source", f.src, f.env)
				if code != tt.exit || !strings.Contains(out+errs, tt.msg) {
					t.Errorf("exit %d, want %d (%q)\nstdout: %s\nstderr: %s", code, tt.exit, tt.msg, out, errs)
				}
				// --json: the same verdict as one object on stdout
				code, out, errs = call(t, f.secrets, "verify", "--json", "--key", key, "--source", f.src, f.env)
				var a verifyAnswer
				if err := json.Unmarshal([]byte(out), &a); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
					t.Fatalf("--json: stdout is not one JSON object (%v):\n%s", err, out)
				}
				wantVerdict := strings.ReplaceAll(strings.TrimSuffix(tt.msg, ": "), " ", "_")
				wantReceipt := f.rec
				if code == exitBadSignature || code == exitUnknownKey {
					wantReceipt = "" // the signature failed: no receipt was looked at
				}
				if code != tt.exit || a.ExitCode != code || a.Verdict != wantVerdict || a.Valid != (code == exitOK) ||
					!strings.HasPrefix(a.Message, tt.msg) || a.Envelope != f.env || a.Receipt != wantReceipt || a.SourceChecked != (code == exitOK) || a.KeyID == "" {
					t.Errorf("--json: exit %d, %+v; want exit %d, verdict %s", code, a, tt.exit, wantVerdict)
				}
				if code != exitOK && !strings.Contains(errs, tt.msg) {
					t.Errorf("--json: stderr lacks the verdict %q: %s", tt.msg, errs)
				}
			})
		}
	}
}

// Keys come from the environment too, as a file name or as the material.
func TestKeysFromEnvironment(t *testing.T) {
	f := setup(t, "hmac-sha256")
	t.Setenv(envSignKey, testSecret)
	if code, _, errs := call(t, f.secrets, "sign", f.rec); code != 0 {
		t.Fatalf("sign with %s: %s", envSignKey, errs)
	}
	t.Setenv(envVerifyKeyFile, f.verifyKey)
	if code, out, errs := call(t, f.secrets, "verify", f.env); code != 0 || !strings.Contains(out, "source not checked") {
		t.Fatalf("verify with %s: %d %s %s", envVerifyKeyFile, code, out, errs)
	}
	os.Unsetenv(envVerifyKeyFile)
	t.Setenv(envVerifyKey, testSecret)
	if code, _, errs := call(t, f.secrets, "verify", "--receipt", f.rec, f.env); code != 0 {
		t.Fatalf("verify with %s: %s", envVerifyKey, errs)
	}
}

func TestSignVerifyUsage(t *testing.T) {
	f := setup(t, "ed25519")
	short := filepath.Join(f.dir, "short")
	os.WriteFile(short, []byte("CANARY-short"), 0o600)
	sentence := filepath.Join(f.dir, "sentence")
	os.WriteFile(sentence, []byte("CANARY the secret of the acme payments team, long enough\n"), 0o600)
	phrase := filepath.Join(f.dir, "phrase")
	os.WriteFile(phrase, []byte("CANARYHorseBatteryStapleCANARYHorseBatteryStaple\n"), 0o600)
	tests := []struct {
		name string
		args []string
		exit int
		msg  string
	}{
		{"sign without receipt", []string{"sign", "--key", f.signKey}, exitUsage, "at least one RECEIPT"},
		{"sign without key", []string{"sign", f.rec}, exitUsage, "no key"},
		{"sign with the public key", []string{"sign", "--key", f.verifyKey, f.rec}, exitUsage, "public key"},
		{"sign alg mismatch", []string{"sign", "--key", f.signKey, "--alg", "hmac-sha256", f.rec}, exitUsage, "ed25519 key"},
		{"short secret", []string{"sign", "--key", short, f.rec}, exitUsage, "not 32+ random bytes"},
		{"a sentence as the secret", []string{"sign", "--key", sentence, f.rec}, exitUsage, "not 32+ random bytes"},
		{"a passphrase that is base64", []string{"sign", "--key", phrase, f.rec}, exitUsage, "not 32+ random bytes"},
		{"verify with a sentence", []string{"verify", "--key", sentence, f.env}, exitUsage, "not 32+ random bytes"},
		{"sign a non-receipt", []string{"sign", "--key", f.signKey, f.src}, exitFailed, "convert.summary"},
		{"keygen never overwrites", []string{"keygen", "--out", filepath.Join(f.dir, "k")}, exitUsage, "never overwrites"},
		{"verify without envelope", []string{"verify", "--key", f.verifyKey}, exitUsage, "exactly one ENVELOPE"},
		{"verify a non-envelope", []string{"verify", "--key", f.verifyKey, f.rec}, exitFailed, "not a DSSE envelope"},
		{"verify a missing envelope, key after it", []string{"verify", "nope.sig.json", "--key", f.verifyKey}, exitUsage, "nope.sig.json: no such file or directory"},
		{"verify with the private key", []string{"verify", "--key", f.signKey, "--source", f.src, f.env}, exitOK, "byte-identical"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, append(f.secrets, "CANARY-short"), tt.args...)
			if code != tt.exit || !strings.Contains(out+errs, tt.msg) {
				t.Errorf("exit %d, want %d (%q)\nstdout: %s\nstderr: %s", code, tt.exit, tt.msg, out, errs)
			}
		})
	}
}

// A Claude Code session with a subagent: the companion is re-converted
// too, and a change to it is a changed source.
func TestVerifySessionGroup(t *testing.T) {
	dir := t.TempDir()
	src := "../../samples/claude_code/basic"
	var main, sub string
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dir, "in", rel))
		if strings.HasSuffix(p, ".jsonl") {
			if strings.Contains(p, "subagents") {
				sub = filepath.Join(dir, "in", rel)
			} else {
				main = filepath.Join(dir, "in", rel)
			}
		}
		return nil
	})
	if main == "" || sub == "" {
		t.Fatal("sample layout changed")
	}
	if code, _, errs := call(t, nil, "run", "--out", filepath.Join(dir, "out"), filepath.Join(dir, "in")); code != 0 {
		t.Fatal(errs)
	}
	rel, _ := filepath.Rel(filepath.Join(dir, "in"), main)
	rec := filepath.Join(dir, "out", filepath.FromSlash(pipeline.OutputName(filepath.ToSlash(rel), ".receipt.ndjson")))
	call(t, nil, "keygen", "--out", filepath.Join(dir, "k"))
	secrets := keyMaterial(t, filepath.Join(dir, "k.key"))
	if code, _, errs := call(t, secrets, "sign", "--key", filepath.Join(dir, "k.key"), rec); code != 0 {
		t.Fatal(errs)
	}
	verify := func() (int, string) {
		code, out, errs := call(t, secrets, "verify", "--key", filepath.Join(dir, "k.pub"), "--source", main, rec+sigSuffix)
		return code, out + errs
	}
	if code, msg := verify(); code != exitOK || !strings.Contains(msg, "1 companion files re-converted byte-identical") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, _ := os.ReadFile(sub)
	os.WriteFile(sub, append(b, '\n'), 0o644) // a blank line: still converts, other bytes
	if code, msg := verify(); code != exitSourceChanged || !strings.Contains(msg, "companion files") {
		t.Fatalf("exit %d: %s", code, msg)
	}
}

// A receipt made in keyed mode needs its hash key to be re-converted.
func TestVerifyKeyedMode(t *testing.T) {
	f := setup(t, "ed25519")
	hk := filepath.Join(f.dir, "hash.key")
	os.WriteFile(hk, []byte("a12dd3a7fd3203a452eb34d91a9be20569d5e337a3384347068895c07f3e0c5a\n"), 0o600)
	secrets := append(f.secrets, "a12dd3a7fd3203a452eb34d9")
	if code, _, errs := call(t, secrets, "run", "--hash-key-file", hk, "--out", filepath.Join(f.dir, "out"), f.src); code != 0 {
		t.Fatal(errs)
	}
	// A keyed run names a file that is not id-shaped by its keyed digest.
	h, err := receipt.NewKeyed([]byte("a12dd3a7fd3203a452eb34d91a9be20569d5e337a3384347068895c07f3e0c5a"))
	if err != nil {
		t.Fatal(err)
	}
	f.rec = filepath.Join(f.dir, "out", pipeline.OutputNameHashed(h, filepath.Base(f.src), ".receipt.ndjson"))
	f.env = f.rec + sigSuffix
	call(t, secrets, "sign", "--key", f.signKey, f.rec)
	if code, _, errs := call(t, secrets, "verify", "--key", f.verifyKey, "--source", f.src, f.env); code != exitUsage || !strings.Contains(errs, "--hash-key-file") {
		t.Errorf("without the hash key: %d %s", code, errs)
	}
	if code, out, errs := call(t, secrets, "verify", "--key", f.verifyKey, "--hash-key-file", hk, "--source", f.src, f.env); code != exitOK {
		t.Errorf("with the hash key: %d %s %s", code, out, errs)
	}
}

// TestVerifyHashesTheSourceAsAStream: verify --source hashes the log as a
// stream. A generated 48 MiB source (not the signed one) is judged "source
// changed" with far less allocated than the log's size, so it was never
// held in memory whole.
func TestVerifyHashesTheSourceAsAStream(t *testing.T) {
	f := setup(t, "hmac-sha256")
	const size = 48 << 20
	fh, err := os.Create(f.src)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"type":"user_prompt","time":"2026-01-01T00:00:00Z","prompt":"CANARY-big-source ` + strings.Repeat("x", 200) + "\"}\n")
	w := bufio.NewWriterSize(fh, 1<<20)
	for n := 0; n < size; n += len(line) {
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, errs := call(t, f.secrets, "verify", "--key", f.verifyKey, "--source", f.src, f.env)
	runtime.ReadMemStats(&after)
	if code != exitSourceChanged || !strings.Contains(errs, "source changed") {
		t.Fatalf("exit %d %s, want %d (source changed)", code, errs, exitSourceChanged)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > size/8 {
		t.Fatalf("verify allocated %d bytes for a %d-byte source: it read the log into memory", alloc, size)
	}
	t.Logf("verify allocated %d bytes for a %d-byte source", alloc, size)
}

// TestKeygenPlaces: with no --out a key goes to convert's configuration
// folder (0700, the key 0600); an --out inside a git work tree is refused
// (a key one git add from a commit) unless --force.
func TestKeygenPlaces(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	for _, alg := range []string{"hash", "hmac-sha256", "ed25519"} {
		if code, out, errs := call(t, nil, "keygen", "--alg", alg); code != 0 || !strings.Contains(out, "wrote ") {
			t.Fatalf("keygen --alg %s: %d %s %s", alg, code, out, errs)
		}
	}
	for name, mode := range map[string]os.FileMode{"": 0o700, "convert.hashkey": 0o600, "convert-signing.secret": 0o600, "convert-signing.key": 0o600} {
		st, err := os.Stat(filepath.Join(cfg, "convert", name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s: mode %o, want %o", name, st.Mode().Perm(), mode)
		}
	}
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	in := filepath.Join(repo, "sub", "team")
	if code, _, errs := call(t, nil, "keygen", "--alg", "hash", "--out", in); code != exitUsage || !strings.Contains(errs, "inside the git work tree") {
		t.Errorf("keygen in a work tree: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(in + ".hashkey"); err == nil {
		t.Error("the key was written in the work tree")
	}
	if code, _, errs := call(t, nil, "keygen", "--alg", "hash", "--out", in, "--force"); code != 0 {
		t.Errorf("keygen --force: exit %d: %s", code, errs)
	}
}

// TestKeygenJSON: keygen --json says what it made, one object on stdout:
// the algorithm, the key id and each file with its role and mode (as on
// disk), never the key itself.
func TestKeygenJSON(t *testing.T) {
	tests := []struct {
		alg   string
		roles map[string]string // suffix -> role
		id    string            // key id prefix
	}{
		{"ed25519", map[string]string{".key": "private", ".pub": "public"}, "ed25519:"},
		{"hmac-sha256", map[string]string{".secret": "secret"}, "hmac-sha256:"},
		{"hash", map[string]string{".hashkey": "hash_key"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.alg, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "k")
			code, out, errs := call(t, nil, "keygen", "--json", "--alg", tt.alg, "--out", prefix)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var a keygenAnswer
			if err := json.Unmarshal([]byte(out), &a); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Fatalf("stdout is not one JSON object (%v):\n%s", err, out)
			}
			if a.Alg != tt.alg || a.KeyID == "" || !strings.HasPrefix(a.KeyID, tt.id) || len(a.Files) != len(tt.roles) {
				t.Fatalf("answer %+v", a)
			}
			for _, f := range a.Files {
				role, ok := tt.roles[strings.TrimPrefix(f.Path, prefix)]
				st, err := os.Stat(f.Path)
				if !ok || role != f.Role || err != nil || fmt.Sprintf("%04o", st.Mode().Perm()) != f.Mode {
					t.Errorf("file %+v: want role %q; on disk %v %v", f, role, st.Mode(), err)
				}
				if f.Role != "public" {
					for _, m := range keyMaterial(t, f.Path) {
						if strings.Contains(out+errs, m) {
							t.Errorf("the key of %s is printed", f.Path)
						}
					}
				}
			}
			// and it still refuses to overwrite, with no JSON on stdout
			if code, out, _ := call(t, nil, "keygen", "--json", "--alg", tt.alg, "--out", prefix); code != exitUsage || out != "" {
				t.Errorf("second keygen: exit %d, stdout %q", code, out)
			}
		})
	}
}

// TestVerifyHostileStatement: an envelope signed by a key the verifier
// holds may still name anything (a signer's mistake, or a team secret
// known to many): verify prints a name, digest, version or algorithm read
// from it only when a written receipt could hold it, else by digest.
func TestVerifyHostileStatement(t *testing.T) {
	f := setup(t, "hmac-sha256")
	key, err := sign.ParseKey([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile(f.rec)
	tests := []struct {
		name   string
		mutate func(st *sign.Statement)
		exit   int
	}{
		{"receipt name and digest", func(st *sign.Statement) {
			for i := range st.Subject {
				if st.Subject[i].Name == filepath.Base(f.rec) {
					st.Subject[i].Name, st.Subject[i].Digest["sha256"] = "CANARY-name /Users/CANARYUSER 4111111111111111", strings.Repeat("ab", 32)
				}
			}
		}, exitReceiptChanged},
		{"source name and digest", func(st *sign.Statement) {
			for i := range st.Subject {
				if st.Subject[i].Name != filepath.Base(f.rec) {
					st.Subject[i].Name, st.Subject[i].Digest["sha256"] = "CANARY-source AKIAIOSFODNN7EXAMPLE", strings.Repeat("cd", 32)
				}
			}
		}, exitSourceChanged},
		{"version", func(st *sign.Statement) { st.Predicate.Version = "CANARY-version 555-123-4567" }, exitNotReproducible},
		{"statement type", func(st *sign.Statement) { st.Type = "CANARY-type /Users/CANARYUSER" }, exitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := sign.NewStatement(filepath.Base(f.rec), rec, sign.HMACSHA256)
			if err != nil {
				t.Fatal(err)
			}
			tt.mutate(st)
			env, err := sign.Sign(st, key)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(env)
			p := filepath.Join(t.TempDir(), "hostile.sig.json")
			os.WriteFile(p, b, 0o644)
			code, out, errs := call(t, f.secrets, "verify", "--key", f.verifyKey, "--receipt", f.rec, "--source", f.src, p) // call fails on any CANARY
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.exit, out, errs)
			}
			for _, s := range []string{"4111111111111111", "AKIAIOSFODNN7", "555-123-4567", "/Users/"} {
				if strings.Contains(out+errs, s) {
					t.Errorf("verify printed %q:\n%s%s", s, out, errs)
				}
			}
		})
	}
}
