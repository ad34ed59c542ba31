package receipt

// IsToken reports whether s may pass through a receipt as a categorical value:
// 1-128 bytes of ASCII letters, digits and _ . : + -, starting with a letter or
// digit. Free text (spaces), paths (/), e-mail addresses (@) and anything
// non-ASCII are not tokens, so a categorical field that carries them is
// hashed instead of copied.
func IsToken(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == ':' || c == '+' || c == '-'):
		default:
			return false
		}
	}
	return true
}
