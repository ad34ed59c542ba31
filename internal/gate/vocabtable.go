package gate

//go:generate go run ./gen

// VocabHash is the hash of the generated vocabulary table (vocab_gen.go,
// laid out by internal/gate/vocabgen): fixed, eight bytes a step.
func VocabHash(s string) uint64 {
	h := uint64(len(s)) * 0x9E3779B97F4A7C15
	for ; len(s) >= 8; s = s[8:] {
		k := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ k) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	var k uint64
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ k) * 0x94D049BB133111EB
	return h ^ h>>29
}
