package pipeline

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextreceipts/convert/converters"
)

// endlessFS holds one file that never ends (as /dev/zero would read), and
// counts the bytes read of it.
type endlessFS struct{ read *atomic.Int64 }

func (e endlessFS) Open(name string) (fs.File, error) { return endless{e.read}, nil }

type endless struct{ read *atomic.Int64 }

func (endless) Stat() (fs.FileInfo, error) { return endlessInfo{}, nil }
func (endless) Close() error               { return nil }
func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "CANARY-zero "[i%12]
	}
	e.read.Add(int64(len(p)))
	return len(p), nil
}

type endlessInfo struct{}

func (endlessInfo) Name() string       { return "endless.jsonl" }
func (endlessInfo) Size() int64        { return 0 }
func (endlessInfo) Mode() fs.FileMode  { return 0o444 }
func (endlessInfo) ModTime() time.Time { return time.Time{} }
func (endlessInfo) IsDir() bool        { return false }
func (endlessInfo) Sys() any           { return nil }

// TestDetectionIsBounded: detection reads at most DetectBytes of an input
// (and a little for the shape hint), whatever it is: a file that never
// ends is of no known kind, not read for ever; a session whose first line
// is longer than DetectBytes is refused with a message that says so and
// names --converter, and converts with --converter.
func TestDetectionIsBounded(t *testing.T) {
	t.Run("a file that never ends", func(t *testing.T) {
		var read atomic.Int64
		done := make(chan Result, 1)
		go func() {
			done <- Convert(Input{Path: "endless.jsonl", Rel: "endless.jsonl"}, Options{FS: endlessFS{&read}})
		}()
		var res Result
		select {
		case res = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("detection still reading after 20 s (%d bytes)", read.Load())
		}
		if !errors.Is(res.Err, converters.ErrNoKind) && !strings.Contains(errString(res.Err), converters.ErrNoKind.Error()) {
			t.Errorf("err = %v, want no known kind", res.Err)
		}
		if n := read.Load(); n > DetectBytes+256<<10 {
			t.Errorf("detection read %d bytes, want at most %d and a little", n, DetectBytes)
		}
		if strings.Contains(errString(res.Err), "CANARY") {
			t.Errorf("the message quotes the input: %v", res.Err)
		}
	})
	t.Run("a first line longer than detection reads", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join("..", "..", "samples", "claude_code", "basic", "-Users-alice-src-acme-ledger", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		first := `{"type":"summary","summary":"` + strings.Repeat("CANARY-summary ", DetectBytes/15+1024) + `"}` + "\n"
		p := filepath.Join(t.TempDir(), "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl")
		if err := os.WriteFile(p, append([]byte(first), src...), 0o644); err != nil {
			t.Fatal(err)
		}
		res := Convert(Input{Path: p, Rel: filepath.Base(p), Name: "session.jsonl"}, Options{})
		msg := errString(res.Err)
		if !strings.Contains(msg, converters.ErrNoKind.Error()) || !strings.Contains(msg, "only its first "+HumanBytes(DetectBytes)+" are read") || !strings.Contains(msg, "--converter") {
			t.Errorf("err = %q, want no known kind, why, and --converter", msg)
		}
		if strings.Contains(msg, "CANARY") || strings.Contains(msg, filepath.Dir(p)) {
			t.Errorf("the message quotes the input or its folder: %q", msg)
		}
		res = Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: "claude_code"})
		if res.Err != nil || len(res.Receipt) == 0 {
			t.Errorf("with --converter: %v", res.Err)
		}
		if bytes.Contains(res.Receipt, []byte("CANARY")) || bytes.Contains(res.Trace, []byte("CANARY")) {
			t.Error("a canary reached an output")
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDetectsHugeFirstRecords: a session whose every first record is
// megabytes (a pasted file in the first prompt) is recognised; detection
// judges whole lines up to its bound, not a smaller line limit.
func TestDetectsHugeFirstRecords(t *testing.T) {
	rec := `{"type":"user","sessionId":"22222222-2222-4333-8444-555555555555","uuid":"b","timestamp":"2026-01-01T00:00:00Z","version":"2.1.42","cwd":"/Users/CANARY-user/proj","message":{"role":"user","content":"CANARY-huge ` + strings.Repeat("x", 3<<20) + `"}}` + "\n"
	p := filepath.Join(t.TempDir(), "22222222-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
	if res.Err != nil || res.Converter != "claude_code" {
		t.Fatalf("converter %q, err %v", res.Converter, res.Err)
	}
	if bytes.Contains(res.Receipt, []byte("CANARY")) || bytes.Contains(res.Trace, []byte("CANARY")) {
		t.Error("a canary reached an output")
	}
}
