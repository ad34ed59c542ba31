package leak

import (
	"bytes"
	"strings"
	"unsafe"
)

// tails is a filter of the last keys of a Paths' entries: "type" of
// "message.content.#.type", "input_tokens" of "*.input_tokens", "#" of
// "messages.#". A value whose own key is not in it sits at no pass-through
// path, so the walker counts it raw without looking its path up: most of a
// transcript's values are text, code and tool data under keys no
// pass-through names, and the walk must not pay a look-up (a hash of the
// whole path, two for a number) for each of them. A false "maybe" (one key
// in a few hundred) only costs the look-up it would have made anyway; a
// key of an entry must never be missed (FuzzTails).
type tails struct {
	bits [64]uint64
	of   unsafe.Pointer // the Paths it was made for, and its size then
	n    int
}

func tailBit[T string | []byte](k T) (int, uint64) {
	h := uint(len(k)) * 0x9e3779b1
	if len(k) > 0 {
		h ^= uint(k[0])*0x85ebca6b ^ uint(k[len(k)-1])*0xc2b2ae35 ^ uint(k[len(k)/2])*0x27d4eb2f
	}
	h = (h ^ h>>15) & 4095
	return int(h >> 6), 1 << (h & 63)
}

// has reports whether a value under key k may sit at a pass-through path;
// without a filter, any may. The path's last part is what follows k's
// last dot: under key "b.c" the path "a.b.c" ends in "c", as "a.b.c" in
// the Paths does.
func (t *tails) has(k []byte) bool {
	if t == nil {
		return true
	}
	i, b := tailBit(k[bytes.LastIndexByte(k, '.')+1:])
	return t.bits[i]&b != 0
}

// forPaths returns t made for pass, remade when pass is another map or has grown.
func (t *tails) forPaths(pass Paths) *tails {
	if p := *(*unsafe.Pointer)(unsafe.Pointer(&pass)); p != t.of || len(pass) != t.n {
		t.bits = [64]uint64{}
		for path := range pass {
			i, b := tailBit(path[strings.LastIndexByte(path, '.')+1:])
			t.bits[i] |= b
		}
		t.of, t.n = p, len(pass)
	}
	return t
}
