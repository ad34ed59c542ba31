package native

import "strings"

// IDSet is a set of record ids, most of them UUIDs. A long session's
// readers keep one id per record (Claude Code's main-file uuids, against
// which companion transcripts' replays are told apart): as strings, each
// costs its 48-byte copy and a 16-byte header on top of the map's slot; a
// canonical lower-case UUID is kept as its 16 bytes instead. Anything
// else (upper case, braces, another id scheme) is kept as a string, so the
// set answers exactly as a map of strings would.
type IDSet struct {
	uuids map[[16]byte]struct{}
	other map[string]struct{}
}

func (s *IDSet) Add(id string) {
	if u, ok := packUUID(id); ok {
		if s.uuids == nil {
			s.uuids = map[[16]byte]struct{}{}
		}
		s.uuids[u] = struct{}{}
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	s.other[strings.Clone(id)] = struct{}{} // a copy, not the line
}

func (s *IDSet) Has(id string) bool {
	if u, ok := packUUID(id); ok {
		_, in := s.uuids[u]
		return in
	}
	_, in := s.other[id]
	return in
}

// packUUID reads a canonical lower-case UUID (8-4-4-4-12 hex digits) as
// its 16 bytes. Only one spelling packs, so two ids that pack alike are
// the same string.
func packUUID(id string) (u [16]byte, ok bool) {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
		return u, false
	}
	n := 0
	for i := 0; i < 36; i += 2 {
		if id[i] == '-' {
			i--
			continue
		}
		hi, lo := lowerHex(id[i]), lowerHex(id[i+1])
		if hi < 0 || lo < 0 {
			return u, false
		}
		u[n] = byte(hi<<4 | lo)
		n++
	}
	return u, n == 16
}

func lowerHex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
