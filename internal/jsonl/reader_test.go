package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct {
	n       int
	text    string
	tooLong bool
	unended bool
	size    int64
}

func readAll(t *testing.T, r io.Reader, max int) ([]got, *Reader) {
	t.Helper()
	rd := NewReader(r, max)
	var out []got
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got{l.N, string(l.Bytes), l.TooLong, l.Unended, l.Size})
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		max   int
		want  []got
		blank int
	}{
		{"plain", "{}\n{\"a\":1}\n", 0, []got{{1, "{}", false, false, 2}, {2, `{"a":1}`, false, false, 7}}, 0},
		{"no final newline", "{}\n{\"a\"", 0, []got{{1, "{}", false, false, 2}, {2, `{"a"`, false, true, 4}}, 0},
		{"crlf", "{}\r\n{}\r\n", 0, []got{{1, "{}", false, false, 2}, {2, "{}", false, false, 2}}, 0},
		{"stray cr inside a line stays", "{\"a\":\"x\ry\"}\n", 0, []got{{1, "{\"a\":\"x\ry\"}", false, false, 11}}, 0},
		{"blank lines are counted, not returned", "\n  \n{}\n\t\n", 0, []got{{3, "{}", false, false, 2}}, 3},
		{"empty input", "", 0, nil, 0},
		{"line over the cap", "{}\n" + strings.Repeat("x", 40) + "\n{}\n", 16, []got{{1, "{}", false, false, 2}, {2, "", true, false, 40}, {3, "{}", false, false, 2}}, 0},
		{"line exactly at the cap", strings.Repeat("y", 16) + "\n", 16, []got{{1, strings.Repeat("y", 16), false, false, 16}}, 0},
		{"unended line over the cap", strings.Repeat("z", 20), 16, []got{{1, "", true, true, 20}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, rd := readAll(t, strings.NewReader(tt.in), tt.max)
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines %+v, want %+v", len(lines), lines, tt.want)
			}
			for i := range lines {
				if lines[i] != tt.want[i] {
					t.Errorf("line %d = %+v, want %+v", i, lines[i], tt.want[i])
				}
			}
			if rd.Blank != tt.blank {
				t.Errorf("blank = %d, want %d", rd.Blank, tt.blank)
			}
			if rd.BytesRead() != int64(len(tt.in)) {
				t.Errorf("byte count does not cover the whole input")
			}
		})
	}
}

// TestReaderOneByteAtATime: the result must not depend on how the
// underlying reader splits its data.
func TestReaderOneByteAtATime(t *testing.T) {
	in := "{\"a\":1}\r\n\n" + strings.Repeat("q", 100) + "\n{\"b\":2}"
	whole, _ := readAll(t, strings.NewReader(in), 64)
	bytewise, _ := readAll(t, iotest.OneByteReader(strings.NewReader(in)), 64)
	if len(whole) != len(bytewise) {
		t.Fatalf("%d vs %d lines", len(whole), len(bytewise))
	}
	for i := range whole {
		if whole[i] != bytewise[i] {
			t.Errorf("line %d: %+v vs %+v", i, whole[i], bytewise[i])
		}
	}
}

// TestHugeLineBoundedMemory streams a 9 MiB line past a 1 MiB cap: it is
// reported, not held.
func TestHugeLineBoundedMemory(t *testing.T) {
	huge := io.MultiReader(strings.NewReader(`{"type":"x","blob":"`), io.LimitReader(repeatReader('A'), 9<<20), strings.NewReader("\"}\n{}\n"))
	rd := NewReader(huge, 1<<20)
	l, err := rd.Next()
	if err != nil || !l.TooLong || l.Size < 9<<20 {
		t.Fatalf("first line: %+v, %v", l, err)
	}
	if cap(rd.buf) > 2<<20 {
		t.Errorf("reader buffer grew to %d bytes for a skipped line", cap(rd.buf))
	}
	if l, err := rd.Next(); err != nil || string(l.Bytes) != "{}" || l.N != 2 {
		t.Fatalf("second line: %+v, %v", l, err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestReleaseReuse: readers that give their long-line buffer back, one
// after the other (as the pipeline's files do), each read their own long
// lines whole, and a released reader can still be read.
func TestReleaseReuse(t *testing.T) {
	long := func(c byte, n int) string { return strings.Repeat(string(c), n) }
	for i, body := range []string{
		long('a', 200<<10) + "\n" + long('b', 70<<10) + "\n",
		long('c', 100<<10) + "\nshort\n" + long('d', 300<<10),
		long('e', 9<<20) + "\n" + long('f', 80<<10) + "\n", // a buffer past 8 MiB is not kept
	} {
		r := NewReader(strings.NewReader(body), 0)
		var lines []string
		for {
			l, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(l.Bytes))
			if len(lines) == 1 && i == 1 {
				r.Release() // mid-file: the next long line takes a buffer again
			}
		}
		r.Release()
		if want := strings.Split(strings.TrimSuffix(body, "\n"), "\n"); strings.Join(lines, "|") != strings.Join(want, "|") {
			t.Errorf("reader %d: lines differ after reusing a released buffer", i)
		}
	}
}
