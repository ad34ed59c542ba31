package testshared

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test: it records whether the helper skipped or
// failed it, and why, and stops the goroutine there as testing does.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, sprint(args)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) {
	r.failed, r.msg = true, sprint(args)
	runtime.Goexit()
}

func sprint(args []any) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(a.(string))
	}
	return b.String()
}

// run calls f with a recorder in its own goroutine (Skip and Fatal end it)
// and returns the recorder and what f returned.
func run(f func(testing.TB) string) (*recorder, string) {
	r := &recorder{}
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = f(r)
	}()
	<-done
	return r, got
}

func TestCI(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "true": true, "1": true, "yes": true} {
		t.Setenv("CI", v)
		if CI() != want {
			t.Errorf("CI=%q: CI() = %v, want %v", v, !want, want)
		}
	}
	t.Setenv("CI", "true")
	os.Unsetenv("CI") // t.Setenv restores it after the test
	if CI() {
		t.Error("CI unset: CI() = true")
	}
}

// TestDir: present, the path comes back whatever CI says; absent (or a
// file), the test skips with one line naming the folder when CI is unset
// and fails when it is set.
func TestDir(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	present := filepath.Join(shared, "reference", "pluribus")
	if err := os.MkdirAll(present, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r, got := run(func(tb testing.TB) string { return dirIn(tb, shared, "reference", "pluribus") })
		if r.skipped || r.failed || got != present {
			t.Errorf("CI=%q, present: got %q, skipped %v, failed %v (%s)", ci, got, r.skipped, r.failed, r.msg)
		}
		for _, parts := range [][]string{{"corpus-seed"}, {"afile"}} {
			r, got = run(func(tb testing.TB) string { return dirIn(tb, shared, parts...) })
			name := "../shared/" + parts[0]
			switch {
			case got != "":
				t.Errorf("CI=%q, %s absent: returned %q", ci, name, got)
			case ci == "" && (!r.skipped || r.failed):
				t.Errorf("CI unset, %s absent: skipped %v, failed %v, want a skip", name, r.skipped, r.failed)
			case ci != "" && (!r.failed || r.skipped):
				t.Errorf("CI set, %s absent: skipped %v, failed %v, want a failure", name, r.skipped, r.failed)
			case !strings.Contains(r.msg, name) || !strings.Contains(r.msg, filepath.Join(shared, parts[0])) || strings.Contains(r.msg, "\n"):
				t.Errorf("CI=%q: reason %q: want one line naming %s and where it was looked for", ci, r.msg, name)
			}
		}
	}
}

func TestUnavailable(t *testing.T) {
	for _, ci := range []string{"", "false", "true"} {
		t.Setenv("CI", ci)
		r, _ := run(func(tb testing.TB) string {
			Unavailable(tb, "chromium is not installed:\napt-get install chromium")
			return "went on"
		})
		if r.failed != (ci == "true") || r.skipped == (ci == "true") {
			t.Errorf("CI=%q: skipped %v, failed %v", ci, r.skipped, r.failed)
		}
		if !strings.HasPrefix(r.msg, "chromium is not installed: apt-get install chromium (") || strings.Contains(r.msg, "\n") {
			t.Errorf("CI=%q: reason %q", ci, r.msg)
		}
	}
}

// TestModuleRoot: from this package's folder the root is two levels up and
// holds go.mod; Dir looks for shared beside it.
func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); root != want {
		t.Errorf("module root %s, want %s", root, want)
	}
	t.Chdir(t.TempDir())
	if _, err := moduleRoot(); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("outside the module: %v", err)
	}
}
