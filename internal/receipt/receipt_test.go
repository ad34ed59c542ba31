package receipt

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

func TestDigests(t *testing.T) {
	var h Hasher
	// sha256("abc"), a published test vector.
	if got := h.Text("abc"); got != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("Text(abc) = %s", got)
	}
	a, err := h.JSON([]byte(`{"b":[1,2.0],"a":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.JSON([]byte(`{ "a" : "x", "b" : [1.0, 2] }`))
	if a != b {
		t.Errorf("JCS digests differ for equal JSON: %s %s", a, b)
	}
	if _, err := h.JSON([]byte(`{"a":`)); err == nil {
		t.Error("invalid JSON was digested")
	}
	if !IsDigest(a) || IsDigest("sha256:abc") || IsDigest("md5:"+strings.Repeat("0", 64)) {
		t.Error("IsDigest")
	}
}

func TestCanonicalText(t *testing.T) {
	var h Hasher
	composed, decomposed := "caf\u00e9\r\nline\rend", "cafe\u0301\nline\nend"
	if h.CanonicalText(composed) != h.CanonicalText(decomposed) {
		t.Error("NFC + LF forms of the same text must share a canonical digest")
	}
	if h.Text(composed) == h.Text(decomposed) {
		t.Error("byte digests must still tell them apart")
	}
	if CanonicalizeText("a\r\n\r\nb") != "a\n\nb" {
		t.Errorf("CRLF: %q", CanonicalizeText("a\r\n\r\nb"))
	}
}

func TestKeyed(t *testing.T) {
	k1, err1 := NewKeyed([]byte("6ab9f1eb8f7d3388f4f9d586f66e99fd54080df2c446f0e58668b09c08a16dd0"))
	k2, err2 := NewKeyed([]byte("015f7e6bc5aeaf483724089e9252cc13b50951a6b69412522765cff4d780306e\n"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if k1.Text("npm test") == k2.Text("npm test") || !strings.HasPrefix(k1.Text("x"), "hmac-sha256:") {
		t.Error("keyed digests must depend on the key")
	}
	if k1.KeyID() == k2.KeyID() || len(k1.KeyID()) != 16 || strings.Contains("6ab9f1eb8f7d3388f4f9d586f66e99fd54080df2c446f0e58668b09c08a16dd0", k1.KeyID()) {
		t.Error("key ids must differ per key and not show the key")
	}
}

func TestLadders(t *testing.T) {
	tests := []struct {
		l    Ladder
		n    int64
		want string
	}{
		{CountLadder, -1, "invalid"}, {CountLadder, 0, "0"}, {CountLadder, 4, "under_5"}, {CountLadder, 5, "under_25"},
		{CountLadder, 12, "under_25"}, {CountLadder, 10000, "10k_plus"},
		{TokenLadder, 620, "under_1k"}, {TokenLadder, 3400, "under_10k"}, {TokenLadder, 18400, "under_50k"}, {TokenLadder, 1 << 40, "1m_plus"},
		{ByteLadder, 1023, "under_1kib"}, {ByteLadder, 1024, "under_16kib"},
		{LatencyLadder, 99, "under_100ms"}, {LatencyLadder, 600000, "10m_plus"},
	}
	for _, tt := range tests {
		if got := tt.l.Bucket(tt.n); got != tt.want {
			t.Errorf("%s(%d) = %s, want %s", tt.l.Name, tt.n, got, tt.want)
		}
	}
	for _, l := range Ladders() {
		if len(l.Labels) != len(l.Bounds)+1 {
			t.Errorf("%s: %d labels for %d bounds", l.Name, len(l.Labels), len(l.Bounds))
		}
	}
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"deferred_tool_loading": true, "claude-opus-4.6": true, "2026-05-20T22:00:02.000Z": true, "sha256:ab": true,
		"": false, "Claude Code": false, "/private/work": false, "a@b.example": false, "-x": false, "caf\u00e9": false,
		strings.Repeat("a", 129): false,
	} {
		if IsToken(s) != want {
			t.Errorf("IsToken(%q) = %v", s, !want)
		}
	}
}

func TestLineJSON(t *testing.T) {
	ev := Event{Name: "e.x", Time: "2026-01-01T00:00:00.000Z", Line: 3, Attrs: Attrs{
		{"s", S("q\"\n\x01<\xff")}, {"b", B(true)}, {"i", Copied(-7)}, {"f", F(0.25)}, {"l", L([]string{"a"})},
	}}
	b, err := Line{TraceID: "t", SpanID: "s", Event: ev, Converter: "c"}.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"trace_id":"t","span_id":"s","name":"e.x","time":"2026-01-01T00:00:00.000Z","attributes":{"s":"q\"\n\u0001<\ufffd","b":true,"i":-7,"f":0.25,"l":["a"]},"schema":"convert.receipt.v1","converter":"c","source_line":3}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if _, err := (Line{Event: Event{Attrs: Attrs{{"f", F(1 / zero())}}}}).AppendJSON(nil); err == nil {
		t.Error("an infinite float was encoded")
	}
}

func zero() float64 { return 0 }

// TestKeyStrength: keyed mode refuses what a guess list could find: short
// keys, passphrases, and encodings of low-entropy bytes; it takes hex,
// base64 and raw random bytes of 32+ bytes.
func TestKeyStrength(t *testing.T) {
	random := make([]byte, 32)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	counter := make([]byte, 32) // 00..1f: 5 bits of entropy per byte, and no key
	stepped := make([]byte, 32)
	for i := range counter {
		counter[i], stepped[i] = byte(i), byte(i*97+13)
	}
	word := sha256.Sum256([]byte("CANARY-acme-payments"))
	for _, tc := range []struct {
		name string
		key  []byte
		ok   bool
	}{
		{"hex of 32 random bytes", []byte(hex.EncodeToString(random) + "\n"), true},
		{"base64 of 32 random bytes", []byte(base64.StdEncoding.EncodeToString(random)), true},
		{"raw random bytes", random, false},
		{"hex of bytes 00..1f", []byte(hex.EncodeToString(counter)), false},
		{"base64 of bytes 00..1f", []byte(base64.StdEncoding.EncodeToString(counter)), false},
		{"bytes 00..1f raw", counter, false},
		{"hex of a stepped run", []byte(hex.EncodeToString(stepped)), false},
		{"a passphrase that is valid base64", []byte("CorrectHorseBatteryStapleCorrectHorseBatteryStaple"), false},
		{"a passphrase of letters, base64 length", []byte("CorrectHorseBatteryStapleIsMyTeamKeyForAcmePay"), false},
		{"CANARY words", []byte("CANARY-correct-horse-battery-staple-xxxxxx"), false},
		// The limit: a key derived from a word looks random (keygen is the way).
		{"hex sha256 of a word", []byte(hex.EncodeToString(word[:])), true},
		{"the README's old passphrase", []byte("a long random team secret, 16+ bytes"), false},
		{"16 random bytes in hex", []byte(hex.EncodeToString(random[:16])), false},
		{"hex of a repeated byte", []byte(strings.Repeat("ab", 32)), false},
		{"a word, hex-looking", []byte(strings.Repeat("deadbeef", 8)), false},
		{"base64 of text", []byte(base64.StdEncoding.EncodeToString([]byte("password password password password"))), false},
		{"short", []byte("short"), false},
	} {
		h, err := NewKeyed(tc.key)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok %v", tc.name, err, tc.ok)
		}
		if err == nil && (len(h.KeyID()) != 16 || strings.Contains(string(tc.key), h.KeyID())) {
			t.Errorf("%s: key id %q", tc.name, h.KeyID())
		}
	}
}

// A long session keeps about a million attributes live: their size is
// most of its peak memory.
func TestValueSize(t *testing.T) {
	if n := unsafe.Sizeof(Value{}); n > 40 {
		t.Fatalf("receipt.Value is %d bytes, want at most 40", n)
	}
}

// Floats and lists keep their values in the compact Value.
func TestValueKinds(t *testing.T) {
	for _, f := range []float64{0, -0.5, 1e300, 3.25} {
		if v := F(f); v.Float() != f || v.Kind != Float {
			t.Errorf("F(%v).Float() = %v", f, v.Float())
		}
	}
	if Computed(7).Float() != 0 || S("x").List() != nil {
		t.Error("Float or List of another kind is not zero")
	}
	if l := L([]string{"a", "b"}).List(); len(l) != 2 || l[1] != "b" {
		t.Errorf("L(a, b).List() = %v", l)
	}
}
