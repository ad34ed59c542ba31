package jsonl

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

type lineRec struct {
	n                int
	text             string
	size             int64
	tooLong, unended bool
}

func readLines(r io.Reader, max int) ([]lineRec, int, int64, error) {
	rd := NewReader(r, max)
	var out []lineRec
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Blank, rd.BytesRead(), nil
		}
		if err != nil {
			return nil, 0, 0, err
		}
		out = append(out, lineRec{l.N, string(l.Bytes), l.Size, l.TooLong, l.Unended})
	}
}

// FuzzReader: any bytes, any cap. The reader never fails on content, reads
// every byte, numbers lines 1..n with blank ones counted, never returns more
// than the cap, and gives the same lines however the input is split.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\r\n\n  \nlast"), 8)
	f.Add([]byte("\r\r\n\n\x00\xff\n"), 1)
	f.Add(bytes.Repeat([]byte("x"), 70000), 65536)
	f.Add([]byte(""), 0)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 || max > 1<<20 {
			max = 1 << 20
		}
		lines, blank, n, err := readLines(bytes.NewReader(data), max)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(data)) {
			t.Fatalf("read %d of %d bytes", n, len(data))
		}
		want := bytes.Count(data, []byte{'\n'})
		if len(data) > 0 && data[len(data)-1] != '\n' {
			want++
		}
		if got := blank + len(lines); got != want {
			t.Fatalf("%d lines + %d blank, want %d lines in all", len(lines), blank, want)
		}
		cap := max
		if cap == 0 {
			cap = DefaultMaxLine
		}
		for i, l := range lines {
			if l.n <= 0 || (i > 0 && l.n <= lines[i-1].n) {
				t.Fatalf("line numbers not increasing: %+v", lines)
			}
			if !l.tooLong && len(l.text) > cap {
				t.Fatalf("line of %d bytes over the cap %d", len(l.text), cap)
			}
			if l.tooLong && l.text != "" {
				t.Fatal("a too-long line kept its bytes")
			}
			if l.unended && i != len(lines)-1 {
				t.Fatal("an unended line before the last")
			}
		}
		split, blank2, _, err := readLines(iotest.OneByteReader(bytes.NewReader(data)), max)
		if err != nil || blank2 != blank || len(split) != len(lines) {
			t.Fatalf("one byte at a time: %d lines (%v), want %d", len(split), err, len(lines))
		}
		for i := range lines {
			if split[i] != lines[i] {
				t.Fatalf("line %d differs when read one byte at a time: %+v vs %+v", i, split[i], lines[i])
			}
		}
	})
}
