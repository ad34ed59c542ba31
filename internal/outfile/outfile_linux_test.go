//go:build linux

package outfile

import (
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// NullDevice makes a character device with /dev/null's numbers (major 1,
// minor 3) at dir/null. It needs root (CAP_MKNOD): CI runs as root; a
// developer's account cannot make a device, and the test says so.
func NullDevice(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("cannot make a character device with mknod (uid %d: %v): this check needs root, as in CI", os.Getuid(), err)
	}
	return p
}

// TestWriteKeepsWhatIsNotARegularFile: a device or a FIFO is written in
// place and stays what it was; a directory and a socket are refused and
// left as they were; a regular file, a new file and a file named through
// a symbolic link are replaced whole.
func TestWriteKeepsWhatIsNotARegularFile(t *testing.T) {
	data := []byte("report\n")
	tests := []struct {
		name  string
		make  func(t *testing.T, dir string) string // returns the target
		err   string                                // "" when written
		mode  fs.FileMode                           // the target's type after
		check func(t *testing.T, target string)
	}{
		{"a character device (null)", NullDevice, "", fs.ModeCharDevice | fs.ModeDevice, nil},
		{"a FIFO with a reader", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(p)
				if err != nil {
					got <- err.Error()
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				got <- string(b)
			}()
			t.Cleanup(func() {
				if s := <-got; s != string(data) {
					t.Errorf("the FIFO's reader got %q", s)
				}
			})
			return p
		}, "", fs.ModeNamedPipe, nil},
		{"a directory", func(t *testing.T, dir string) string { return dir }, "is a directory", fs.ModeDir, nil},
		{"a socket", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "s.sock")
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return p
		}, "is a socket", fs.ModeSocket, nil},
		{"a regular file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.txt")
			os.WriteFile(p, []byte("an older and longer report\n"), 0o600)
			return p
		}, "", 0, readBack(data)},
		{"a new file in a new folder", func(t *testing.T, dir string) string { return filepath.Join(dir, "new", "r.txt") }, "", 0, readBack(data)},
		{"a link to a regular file keeps the link", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, "real.txt"), []byte("old"), 0o644)
			p := filepath.Join(dir, "link.txt")
			os.Symlink("real.txt", p)
			t.Cleanup(func() {
				if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the link was replaced: %v", err)
				}
			})
			return p
		}, "", 0, readBack(data)},
		{"a link to nothing", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "dangling")
			os.Symlink("missing/x", p)
			return p
		}, "symbolic link to nothing", fs.ModeSymlink, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.make(t, t.TempDir())
			err := Write(target, data)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Write: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Write: %v, want an error saying %q", err, tt.err)
			case err != nil && strings.Contains(err.Error(), target):
				t.Errorf("the error repeats the path: %v", err)
			}
			st, lerr := os.Lstat(target)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if got := st.Mode().Type(); got != tt.mode && !(tt.mode == 0 && got == fs.ModeSymlink) {
				t.Errorf("%s is now %v, want %v", target, got, tt.mode)
			}
			if tt.check != nil {
				tt.check(t, target)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(target), ".*.tmp-*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestWriteStdout: /dev/stdout is the process's standard output, written
// at its offset, never opened anew nor replaced: a report appended to a
// file stdout appends to (>>) keeps what the file held.
func TestWriteStdout(t *testing.T) {
	for _, name := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/stderr"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log")
			os.WriteFile(p, []byte("kept\n"), 0o644)
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			old := std
			std = map[int]*os.File{1: f, 2: f}
			defer func() { std = old }()
			if err := Write(name, []byte("report\n")); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); string(b) != "kept\nreport\n" {
				t.Errorf("the file stdout appends to holds %q", b)
			}
		})
	}
}

func readBack(want []byte) func(t *testing.T, target string) {
	return func(t *testing.T, target string) {
		got, err := os.ReadFile(target)
		if err != nil || string(got) != string(want) {
			t.Errorf("read back %q, %v; want %q", got, err, want)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644", st.Mode().Perm())
		}
	}
}
