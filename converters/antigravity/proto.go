package antigravity

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Antigravity's blobs are protobuf messages of its own schemas (not
// published); the few fields read are known by number from ccusage
// 20.0.24's Antigravity parser (doc.go lists them). They are read with
// the wire format alone: no generated code.

// field is one field of a message as the wire holds it.
type field struct {
	num  protowire.Number
	typ  protowire.Type
	v    uint64 // a varint's value
	data []byte // a length-delimited field's bytes
}

// errWire: a blob that is not a protobuf message (ccusage refuses the
// whole database then, and so does the reader).
var errWire = errors.New("not a protobuf message")

// fields decodes one message's fields in wire order. Groups are refused,
// as ccusage refuses them.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errWire
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.data, n = protowire.ConsumeBytes(b)
		case protowire.Fixed64Type:
			_, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			_, n = protowire.ConsumeFixed32(b)
		default:
			return nil, errWire
		}
		if n < 0 {
			return nil, errWire
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, nil
}

// varint is the last varint field num (protobuf's rule for a repeated
// scalar), ok false when there is none.
func varint(fs []field, num protowire.Number) (uint64, bool) {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].num == num && fs[i].typ == protowire.VarintType {
			return fs[i].v, true
		}
	}
	return 0, false
}

// message is the first length-delimited field num (as ccusage reads a
// nested message), nil when there is none.
func message(fs []field, num protowire.Number) []byte {
	for _, f := range fs {
		if f.num == num && f.typ == protowire.BytesType {
			return f.data
		}
	}
	return nil
}

// messages are every length-delimited field num, in order.
func messages(fs []field, num protowire.Number) [][]byte {
	var out [][]byte
	for _, f := range fs {
		if f.num == num && f.typ == protowire.BytesType {
			out = append(out, f.data)
		}
	}
	return out
}

// text is the last length-delimited field num as text: "" when there is
// none, or it is not UTF-8, or it is blank (ccusage's field_text).
func text(fs []field, num protowire.Number) string {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].num == num && fs[i].typ == protowire.BytesType {
			s := string(fs[i].data)
			if !utf8.ValidString(s) || strings.TrimSpace(s) == "" {
				return ""
			}
			return s
		}
	}
	return ""
}

// timestamp reads a google.protobuf.Timestamp (1 seconds, 2 nanos) as
// RFC 3339, "" for none: seconds that are not positive, as ccusage
// reads it (nanos past a second are taken as the last nanosecond).
func timestamp(b []byte) (string, error) {
	fs, err := fields(b)
	if err != nil {
		return "", err
	}
	sec, ok := varint(fs, 1)
	if !ok || sec == 0 || sec > 253402300799 { // past 9999: no time a log has
		return "", nil
	}
	nanos, _ := varint(fs, 2)
	nanos = min(nanos, 999_999_999)
	ms := int64(sec)*1000 + int64(nanos/1_000_000)
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), nil
}

// usage is a ModelUsage message (the usage of one model response):
//
//	1 model id       2 input         3 total output   4 cache creation
//	5 cache read     6 provider      7 message id     9 reasoning
//	10 visible output                11 response id   12 provider's message id
func usage(b []byte) (map[string]any, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	u := map[string]any{}
	for _, c := range []struct {
		key string
		num protowire.Number
	}{{"input", 2}, {"total_output", 3}, {"cache_creation", 4}, {"cache_read", 5}, {"reasoning", 9}, {"visible_output", 10}} {
		v, _ := varint(fs, c.num)
		u[c.key] = v
	}
	for _, c := range []struct {
		key string
		num protowire.Number
	}{{"model_id", 1}, {"provider", 6}} {
		if v, ok := varint(fs, c.num); ok && v != 0 {
			u[c.key] = v
		}
	}
	for _, c := range []struct {
		key string
		num protowire.Number
	}{{"message_id", 7}, {"response_id", 11}, {"provider_message_id", 12}} {
		if s := text(fs, c.num); s != "" {
			u[c.key] = s
		}
	}
	return u, nil
}

// retries reads the retry infos among fs (field num), each holding the
// usage of a retried response in its field 2.
func retries(fs []field, num protowire.Number) ([]map[string]any, error) {
	var out []map[string]any
	for _, b := range messages(fs, num) {
		rf, err := fields(b)
		if err != nil {
			return nil, err
		}
		if ub := message(rf, 2); ub != nil {
			u, err := usage(ub)
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// generation decodes a gen_metadata row's data: field 1 the chat model's
// generation, in it 3 the model id, 4 the usage, 9 the generation info
// (4 its time), 17 retry infos, 19 (else 21) the model's label.
func generation(b []byte) (map[string]any, error) {
	root, err := fields(b)
	if err != nil {
		return nil, err
	}
	chat := message(root, 1)
	if chat == nil {
		return nil, errors.New("no chat model (field 1)")
	}
	fs, err := fields(chat)
	if err != nil {
		return nil, err
	}
	g := map[string]any{}
	if ub := message(fs, 4); ub != nil {
		if g["usage"], err = usage(ub); err != nil {
			return nil, err
		}
	}
	if rs, err := retries(fs, 17); err != nil {
		return nil, err
	} else if len(rs) > 0 {
		g["retries"] = rs
	}
	if info := message(fs, 9); info != nil {
		is, err := fields(info)
		if err != nil {
			return nil, err
		}
		if tb := message(is, 4); tb != nil {
			t, err := timestamp(tb)
			if err != nil {
				return nil, err
			}
			if t != "" {
				g["time"] = t
			}
		}
	}
	if m := firstText(fs, 19, 21); m != "" {
		g["model"] = m
	}
	if id, ok := varint(fs, 3); ok && id != 0 {
		g["model_id"] = id
	}
	return g, nil
}

// stepMetadata decodes a steps row's metadata: 9 the usage, 28 retry
// infos, 24 the model info (12, else 8, the label; 1 the model id; 7 the
// API provider), 8 (else 1) the step's time.
func stepMetadata(b []byte, into map[string]any) error {
	fs, err := fields(b)
	if err != nil {
		return err
	}
	if ub := message(fs, 9); ub != nil {
		if into["usage"], err = usage(ub); err != nil {
			return err
		}
	}
	if rs, err := retries(fs, 28); err != nil {
		return err
	} else if len(rs) > 0 {
		into["retries"] = rs
	}
	if info := message(fs, 24); info != nil {
		is, err := fields(info)
		if err != nil {
			return err
		}
		if m := firstText(is, 12, 8); m != "" {
			into["model"] = m
		}
		if id, ok := varint(is, 1); ok && id != 0 {
			into["model_id"] = id
		}
		if p, ok := varint(is, 7); ok && p != 0 {
			into["provider"] = p
		}
	}
	tb := message(fs, 8)
	if tb == nil {
		tb = message(fs, 1)
	}
	if tb != nil {
		t, err := timestamp(tb)
		if err != nil {
			return err
		}
		if t != "" {
			into["time"] = t
		}
	}
	return nil
}

// trajectoryCreated reads a trajectory_metadata_blob row's data: field 2
// the conversation's creation time.
func trajectoryCreated(b []byte) (string, error) {
	fs, err := fields(b)
	if err != nil {
		return "", err
	}
	if tb := message(fs, 2); tb != nil {
		return timestamp(tb)
	}
	return "", nil
}

// firstText is the first of the fields nums that holds text.
func firstText(fs []field, nums ...protowire.Number) string {
	for _, n := range nums {
		if s := text(fs, n); s != "" {
			return s
		}
	}
	return ""
}
