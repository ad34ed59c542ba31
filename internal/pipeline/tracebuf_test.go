package pipeline

import (
	"bytes"
	"math/rand"
	"testing"
)

// pieces gives back exactly what was written, whatever the sizes of the
// writes: empty, small, across a piece's end, larger than a piece.
func TestPieces(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, sizes := range [][]int{nil, {0}, {5}, {pieceSize}, {pieceSize - 1, 2}, {3 * pieceSize}, {40 * pieceSize}, {17, pieceSize + 3, 0, 1, 2*pieceSize - 20}} {
		var want bytes.Buffer
		var p pieces
		for _, n := range sizes {
			b := make([]byte, n)
			rng.Read(b)
			want.Write(b)
			if k, err := p.Write(b); k != n || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
			}
		}
		got := p.bytes()
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("writes of %v: got %d bytes, want %d", sizes, len(got), want.Len())
		}
		if len(sizes) > 1 && cap(got) != len(got) {
			t.Fatalf("writes of %v: cap %d, len %d", sizes, cap(got), len(got))
		}
		if len(p.bytes()) != 0 {
			t.Fatal("bytes did not empty the pieces")
		}
	}
}

// A spool gives back exactly what was written, in memory and past spillAt
// from its file, which has no name left once the spool is done.
func TestSpool(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, total := range []int{0, 100, spillAt, spillAt + 1, 3*spillAt + 12345} {
		var want bytes.Buffer
		var s spool
		for want.Len() < total {
			b := make([]byte, min(total-want.Len(), rng.Intn(3*pieceSize)))
			rng.Read(b)
			want.Write(b)
			if _, err := s.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if spilled := s.fh != nil; spilled != (total > spillAt) {
			t.Fatalf("%d bytes: spilled %v", total, spilled)
		}
		got, err := s.bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%d bytes written: got back %d, not the same", total, len(got))
		}
		if s.fh != nil || s.name != "" {
			t.Fatalf("%d bytes: file not released", total)
		}
		s.close() // idempotent
	}
}

// Own keeps a slice given to an empty spool as it is; after a Write, or
// past spillAt, it is written like any other.
func TestSpoolOwn(t *testing.T) {
	doc := bytes.Repeat([]byte("x"), 1000)
	var s spool
	s.Own(doc)
	if got, err := s.bytes(); err != nil || len(got) != len(doc) || &got[0] != &doc[0] {
		t.Fatalf("owned slice not kept as it is: %d bytes, %v", len(got), err)
	}
	var after spool
	after.Write([]byte("ab"))
	after.Own(doc)
	if got, _ := after.bytes(); !bytes.Equal(got, append([]byte("ab"), doc...)) {
		t.Fatalf("Own after Write: got %d bytes", len(got))
	}
	big := make([]byte, spillAt+1)
	var past spool
	past.Own(big)
	if past.fh == nil {
		t.Fatal("a slice past spillAt is not spilled")
	}
	if got, _ := past.bytes(); len(got) != len(big) || &got[0] == &big[0] {
		t.Fatalf("past spillAt: %d bytes, same array %v", len(got), &got[0] == &big[0])
	}
}
