package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// endlessZstd writes a small file that decompresses to about gigabytes:
// the same zstd frame of chunk again and again (a zstd stream may be a run
// of frames), so that converting it takes far longer than the test waits.
func endlessZstd(t *testing.T, path string, chunk []byte, frames int) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(chunk, nil)
	enc.Close()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range frames {
		if _, err := f.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSignalEndsRunWithinASecond: SIGINT or SIGTERM ends convert run within
// a second whatever the input is like (many lines, or one line that never
// ends), with the interrupted exit code and no output written, partial or
// whole. The run is the test binary as convert (TestMain), in a process of
// its own.
func TestSignalEndsRunWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("starts convert processes that read gigabytes")
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "samples", "claude_code", "basic", "-Users-alice-src-acme-ledger", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Repeat(src, (8<<20)/len(src)+1) // 8 MiB of session lines
	// one line that never ends: no newline in gigabytes
	long := append([]byte(`{"type":"user","message":{"content":"CANARY-long `), bytes.Repeat([]byte("CANARY-x "), (8<<20)/9)...)
	tests := []struct {
		name  string
		chunk []byte
		sig   syscall.Signal
		args  []string
	}{
		{"SIGINT while converting lines", lines, syscall.SIGINT, nil},
		{"SIGTERM while converting lines", lines, syscall.SIGTERM, nil},
		{"SIGINT inside a line that never ends", long, syscall.SIGINT, []string{"--converter", "claude_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl.zst")
			endlessZstd(t, in, tt.chunk, 2000) // 16 GB of input
			out := filepath.Join(dir, "out")
			args := append([]string{"run", "--jobs", "1", "--out", out}, tt.args...)
			cmd := exec.Command(os.Args[0], append(args, in)...)
			cmd.Env = append(os.Environ(), "CONVERT_TEST_AS_CLI=1", "HOME="+dir)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				t.Fatalf("the run ended before the signal (%v): the input is not long enough\n%s", err, se.String())
			case <-time.After(1500 * time.Millisecond): // well into reading
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("still running 10 s after %v", tt.sig)
			}
			if took := time.Since(sent); took > time.Second {
				t.Errorf("the run took %v to end after %v, want under 1 s", took, tt.sig)
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d\n%s", werr, exitInterrupted, se.String())
			}
			if !strings.Contains(se.String(), "interrupted") {
				t.Errorf("stderr does not say the run was interrupted:\n%s", se.String())
			}
			if strings.Contains(so.String()+se.String(), "CANARY") {
				t.Errorf("a canary reached stdout or stderr:\n%s%s", so.String(), se.String())
			}
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					t.Errorf("the interrupted run left %s", p)
				}
				return nil
			})
		})
	}
}

// TestSignalEndsStdinWait: a run reading standard input from a pipe nobody
// writes to (given -, or no PATH at all) ends within a second of SIGINT,
// exit 130, and leaves no spool or output.
func TestSignalEndsStdinWait(t *testing.T) {
	for _, args := range [][]string{{"-"}, nil} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		cmd := exec.Command(os.Args[0], append([]string{"run", "--out", out}, args...)...)
		cmd.Env = append(os.Environ(), "CONVERT_TEST_AS_CLI=1", "HOME="+dir, "TMPDIR="+dir)
		w, err := cmd.StdinPipe() // held open, never written
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		var se bytes.Buffer
		cmd.Stderr = &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		time.Sleep(700 * time.Millisecond)
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		var werr error
		select {
		case werr = <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v: still waiting on standard input 10 s after SIGINT", args)
		}
		if took := time.Since(sent); took > time.Second {
			t.Errorf("%v: took %v to end after SIGINT", args, took)
		}
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.ExitCode() != exitInterrupted {
			t.Errorf("%v: exit %v, want %d\n%s", args, werr, exitInterrupted, se.String())
		}
		left, _ := filepath.Glob(filepath.Join(dir, "convert-stdin-*"))
		if len(left) > 0 || exists(out) {
			t.Errorf("%v: left %v (out exists: %v)", args, left, exists(out))
		}
	}
}
