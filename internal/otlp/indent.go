package otlp

import "github.com/contextreceipts/convert/internal/jsonscan"

// indent appends src, compact JSON as encoding/json writes it (no space
// outside strings), to dst indented as json.Indent(dst, src, "", "  ")
// does. json.Indent runs its validating scanner over every byte; the trace
// is valid by construction and validated again after, so this need not
// validate: it copies string bodies whole and only lays out structure.
// TestIndentIsJSONIndent and FuzzIndent hold it to json.Indent.
func indent(dst, src []byte) []byte {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := jsonscan.StringEnd(src, i+1)
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, c, src[i+1]) // an empty one stays on its line
				i++
				continue
			}
			depth++
			dst = newline(append(dst, c), depth)
		case '}', ']':
			depth--
			dst = append(newline(dst, depth), c)
		case ',':
			dst = newline(append(dst, ','), depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
