package native

import "testing"

// The set answers as a map of strings: a UUID and any other spelling of
// it (upper case, no dashes, one digit off) are different ids.
func TestIDSet(t *testing.T) {
	const u = "0b9d6f5e-3c1a-4e2b-9f8d-7a6c5b4e3d2f"
	var s IDSet
	for _, id := range []string{u, "agent-a1b2", "", "0B9D6F5E-3C1A-4E2B-9F8D-7A6C5B4E3D2F-x"} {
		s.Add(id)
	}
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{u, true},
		{"agent-a1b2", true},
		{"", true},
		{"0B9D6F5E-3C1A-4E2B-9F8D-7A6C5B4E3D2F", false}, // upper case: another string
		{"0b9d6f5e3c1a4e2b9f8d7a6c5b4e3d2f", false},     // no dashes
		{"0b9d6f5e-3c1a-4e2b-9f8d-7a6c5b4e3d20", false}, // last digit differs
		{"0b9d6f5e-3c1a-4e2b-9f8d-7a6c5b4e3d2g", false}, // not hex
		{"0b9d6f5e-3c1a-4e2b-9f8d:7a6c5b4e3d2f", false}, // a colon for a dash
		{"agent-a1b3", false},
	} {
		if got := s.Has(tc.id); got != tc.want {
			t.Errorf("Has(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
	if _, ok := packUUID(u); !ok {
		t.Fatal("a canonical UUID does not pack")
	}
	a, _ := packUUID(u)
	if a[0] != 0x0b || a[15] != 0x2f {
		t.Errorf("packUUID = %x", a)
	}
}
