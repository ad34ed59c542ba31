package bench

import (
	"bytes"
	"crypto/sha256"
)

// idPrefixes are the prefixed ids of Claude Code (msg_, req_, toolu_,
// srvtoolu_) and Codex (call_, fc_, rs_, ws_, ctc_, resp_) transcripts.
var idPrefixes = map[string]bool{"msg": true, "req": true, "toolu": true, "srvtoolu": true,
	"call": true, "fc": true, "rs": true, "ws": true, "ctc": true, "resp": true}

// rewriter gives one copy of seed lines fresh ids: every UUID, every
// prefixed id (toolu_..., call_...) and every agentId value is replaced by
// a keyed digest of itself. The same id always becomes the same new id
// within one copy (so tool_use/tool_result pairs, parentUuid chains and
// message/request dedup keys still hold), and a different one in another
// copy (so no two copies share a dedup key). Ids in pin are replaced by
// fixed values: the seed's session id becomes the file's own.
type rewriter struct {
	key   [16]byte
	pin   map[string]string
	cache map[string]string
}

func newRewriter(key [16]byte, pin map[string]string) *rewriter {
	return &rewriter{key: key, pin: pin, cache: map[string]string{}}
}

func isHex(c byte) bool   { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isUUID reports whether b (36 bytes) is 8-4-4-4-12 hex digits.
func isUUID(b []byte) bool {
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

// line appends src with its ids rewritten to dst.
func (rw *rewriter) line(dst, src []byte) []byte {
	n := len(src)
	last := 0 // src[last:i] not yet copied
	for i := 0; i < n; {
		c := src[i]
		if i > 0 && (isAlnum(src[i-1]) || src[i-1] == '_') || !isAlnum(c) {
			i++
			continue
		}
		if isHex(c) && i+36 <= n && isUUID(src[i:i+36]) && (i+36 == n || !isAlnum(src[i+36])) {
			dst = append(dst, src[last:i]...)
			dst = append(dst, rw.id(src[i:i+36], uuidShape)...)
			i += 36
			last = i
			continue
		}
		if isLower(c) {
			j := i
			for j < n && j-i < 9 && isLower(src[j]) {
				j++
			}
			if j < n && src[j] == '_' && idPrefixes[string(src[i:j])] {
				k := j + 1
				for k < n && isAlnum(src[k]) {
					k++
				}
				if k-j-1 >= 10 && (k == n || src[k] != '_' && src[k] != '-') {
					dst = append(dst, src[last:j+1]...)
					dst = append(dst, rw.id(src[j+1:k], tokenShape)...)
					i, last = k, k
					continue
				}
			}
		}
		i++
	}
	dst = append(dst, src[last:]...)
	return rw.agentIDs(dst)
}

var agentKey = []byte(`"agentId":"`)

// agentIDs rewrites the values of "agentId" fields in b in place (the
// short hex ids that name subagent transcripts).
func (rw *rewriter) agentIDs(b []byte) []byte {
	for off := 0; ; {
		i := bytes.Index(b[off:], agentKey)
		if i < 0 {
			return b
		}
		s := off + i + len(agentKey)
		e := s
		for e < len(b) && isAlnum(b[e]) {
			e++
		}
		if e < len(b) && b[e] == '"' && e > s {
			copy(b[s:e], rw.id(b[s:e], tokenShape))
		}
		off = e
	}
}

type shape int

const (
	uuidShape  shape = iota // keep the hyphens, version and variant digits, and case
	tokenShape              // keep the length and the character class (hex or alphanumeric)
)

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// id returns the copy's replacement for old (same length).
func (rw *rewriter) id(old []byte, sh shape) string {
	if p, ok := rw.pin[string(old)]; ok {
		return p
	}
	if v, ok := rw.cache[string(old)]; ok {
		return v
	}
	h := sha256.New()
	h.Write(rw.key[:])
	h.Write(old)
	sum := h.Sum(nil)
	for len(sum) < 2*len(old) {
		h.Write(sum[len(sum)-32:])
		sum = h.Sum(sum)
	}
	out := make([]byte, len(old))
	hexOnly := true
	upper := false
	for _, c := range old {
		if !isHex(c) && c != '-' {
			hexOnly = false
		}
		if 'A' <= c && c <= 'F' {
			upper = true
		}
	}
	for i, c := range old {
		switch {
		case sh == uuidShape && (c == '-' || i == 14 || i == 19):
			out[i] = c
		case hexOnly:
			d := "0123456789abcdef"[sum[i]&15]
			if upper && d >= 'a' {
				d -= 'a' - 'A'
			}
			out[i] = d
		default:
			out[i] = alnum[int(sum[i])%len(alnum)]
		}
	}
	v := string(out)
	rw.cache[string(old)] = v
	return v
}
