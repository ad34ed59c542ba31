// Package outfile writes the file a user named with --out FILE (and the
// like: prepare --otel, --recall-effort).
//
// /dev/stdout and /dev/stderr (and /dev/fd/1, /proc/self/fd/1, ...) are
// the process's own descriptors, written as they are.
//
// A regular file, or one that does not exist yet, is written whole or not
// at all: a temporary file beside it, renamed into place. Anything else is
// never renamed over: a character device (/dev/null, a terminal,
// /dev/stdout on a terminal) or a FIFO (/dev/stdout on a pipe, mkfifo) is
// written in place, as a shell's > would; a directory, a socket or a block
// device is refused with a message saying what it is. A rename over
// /dev/null run as root would turn the machine's /dev/null into a regular
// file (issue #49).
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write writes data to path by the rules of the package comment. Its errors
// say what was wrong without the path (the caller names it once), never
// the data.
func Write(path string, data []byte) error {
	err := write(path, data)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// std are the process's standard output and error, by descriptor (a
// variable so that tests can stand a pipe in).
var std = map[int]*os.File{1: os.Stdout, 2: os.Stderr}

// stdName is the descriptor a path names when it is the process's standard
// output or error (/dev/stdout, /dev/fd/1, /proc/self/fd/1 and the same
// for 2); 0 for any other path.
func stdName(path string) int {
	switch filepath.ToSlash(filepath.Clean(path)) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return 1
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return 2
	}
	return 0
}

func write(path string, data []byte) error {
	if fd := stdName(path); fd != 0 {
		// The descriptor itself, as a shell's > /dev/stdout writes: at its
		// offset, appending when it was opened so (>>). Opening the path
		// anew would start at 0 (or truncate) a file stdout is
		// redirected to, and renaming over it would unlink that file.
		_, err := std[fd].Write(data)
		return err
	}
	st, err := os.Stat(path) // through symbolic links: /dev/stdout is one
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return errors.New("a symbolic link to nothing; name the file itself")
		}
		return replace(path, data)
	case err != nil:
		return err
	}
	m := st.Mode()
	switch {
	case m.IsRegular():
		return writeRegular(path, data)
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return inPlace(path, data, 0)
	case m.IsDir():
		return errors.New("is a directory; name a file")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket; name a file")
	case m&fs.ModeDevice != 0:
		return errors.New("is a block device (a disk); name a file")
	}
	return fmt.Errorf("is not a regular file (%s); name a file", m.Type())
}

// writeRegular replaces a regular file. Named through a symbolic link, the
// file the link points to is replaced and the link kept; a link into
// /proc (/dev/stdout redirected to a file is /proc/self/fd/1) is written
// through in place, as the descriptor's file is the one meant.
func writeRegular(path string, data []byte) error {
	lst, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if lst.Mode()&fs.ModeSymlink == 0 {
		return replace(path, data)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || strings.HasPrefix(real, "/proc/") || strings.HasPrefix(real, "/dev/") {
		return inPlace(path, data, os.O_TRUNC)
	}
	return replace(real, data)
}

// inPlace opens path as it is (never creating it) and writes data.
func inPlace(path string, data []byte, flag int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// replace writes data to a temporary file beside path (its folder made if
// missing), mode 0644, and renames it over path.
func replace(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
