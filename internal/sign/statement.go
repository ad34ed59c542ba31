package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Statement is an in-toto Statement v1.
type Statement struct {
	Type          string               `json:"_type"`
	Subject       []ResourceDescriptor `json:"subject"`
	PredicateType string               `json:"predicateType"`
	Predicate     Predicate            `json:"predicate"`
}

// ResourceDescriptor names one subject by file name and digest; the role
// annotation says which one it is ("receipt" or "source").
type ResourceDescriptor struct {
	Name        string            `json:"name"`
	Digest      map[string]string `json:"digest"`
	Annotations map[string]any    `json:"annotations,omitempty"`
}

// Predicate is the run summary: who made the receipt, from what, and the
// attributes of its convert.summary event (counts, leak-check result), which
// are content-free by construction.
type Predicate struct {
	Converter string          `json:"converter"`
	Version   string          `json:"version"`
	Schema    string          `json:"schema"`
	Algorithm string          `json:"signature_algorithm"`
	Lines     int             `json:"receipt_lines"`
	Summary   json.RawMessage `json:"summary"`
}

// Subject roles.
const (
	RoleReceipt = "receipt"
	RoleSource  = "source"
)

// summaryLine is the part of a receipt's last line the statement needs.
type summaryLine struct {
	Name       string                     `json:"name"`
	Schema     string                     `json:"schema"`
	Attributes map[string]json.RawMessage `json:"attributes"`
}

// Summary is the parsed convert.summary of a receipt.
type Summary struct {
	Converter, Version, InputPath, InputSHA256, GroupSHA256, HashKeyID string
	Files                                                              int
	Lines                                                              int // lines of the receipt file
	Raw                                                                json.RawMessage
}

// ReadSummary parses the last line of receipt data (name is used in
// messages). It must be a convert.summary naming its input and its digest.
func ReadSummary(name string, data []byte) (*Summary, error) {
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
	n := len(lines)
	if n == 0 || len(bytes.TrimSpace(lines[n-1])) == 0 {
		return nil, fmt.Errorf("%s: empty receipt", name)
	}
	var s summaryLine
	if err := json.Unmarshal(lines[n-1], &s); err != nil {
		return nil, fmt.Errorf("%s:%d: last line is not JSON", name, n)
	}
	if s.Name != "convert.summary" || s.Schema != "convert.receipt.v1" {
		return nil, fmt.Errorf("%s:%d: last line is not a convert.receipt.v1 convert.summary", name, n)
	}
	str := func(k string) string {
		var v string
		_ = json.Unmarshal(s.Attributes[k], &v)
		return v
	}
	sum := &Summary{Converter: str("convert.converter"), Version: str("convert.version"),
		InputPath: str("convert.input.path"), InputSHA256: str("convert.input.sha256"),
		GroupSHA256: str("convert.input.group_sha256"), HashKeyID: str("convert.hash.key_id"), Lines: n}
	_ = json.Unmarshal(s.Attributes["convert.input.files"], &sum.Files)
	if sum.Converter == "" || sum.InputPath == "" || !isSHA256(sum.InputSHA256) {
		return nil, fmt.Errorf("%s:%d: summary lacks converter, input path or input sha256", name, n)
	}
	raw, err := json.Marshal(s.Attributes)
	if err != nil {
		return nil, err
	}
	sum.Raw = raw
	return sum, nil
}

func isSHA256(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// NewStatement builds the statement for a receipt file: its name and bytes.
// The receipt subject's digest is computed from the bytes; the source
// subject is taken from the receipt's summary.
func NewStatement(receiptName string, data []byte, alg string) (*Statement, error) {
	sum, err := ReadSummary(receiptName, data)
	if err != nil {
		return nil, err
	}
	d := sha256.Sum256(data)
	src := ResourceDescriptor{Name: sum.InputPath, Digest: map[string]string{"sha256": strings.TrimPrefix(sum.InputSHA256, "sha256:")},
		Annotations: map[string]any{"role": RoleSource}}
	if sum.GroupSHA256 != "" {
		src.Annotations["convert.input.files"] = sum.Files
		src.Annotations["convert.input.group_sha256"] = sum.GroupSHA256
	}
	if alg == HMACSHA256 {
		alg = HMACCanonical
	}
	return &Statement{
		Type: StatementType,
		Subject: []ResourceDescriptor{
			{Name: receiptName, Digest: map[string]string{"sha256": hex.EncodeToString(d[:])}, Annotations: map[string]any{"role": RoleReceipt}},
			src,
		},
		PredicateType: PredicateType,
		Predicate: Predicate{Converter: sum.Converter, Version: sum.Version, Schema: "convert.receipt.v1",
			Algorithm: alg, Lines: sum.Lines, Summary: sum.Raw},
	}, nil
}

// ParseStatement decodes verified payload bytes and checks the statement's
// shape: its type, predicate type and one receipt and one source subject,
// each with a sha256 digest.
func ParseStatement(payload []byte) (*Statement, error) {
	var st Statement
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, errors.New("statement: payload is not JSON")
	}
	if st.Type != StatementType || st.PredicateType != PredicateType {
		// not quoted: an envelope may come from anywhere
		return nil, fmt.Errorf("statement: type / predicate type not supported (want %s / %s)", StatementType, PredicateType)
	}
	for _, role := range []string{RoleReceipt, RoleSource} {
		s := st.Find(role)
		if s == nil || !isSHA256("sha256:"+s.Digest["sha256"]) {
			return nil, fmt.Errorf("statement: no %s subject with a sha256 digest", role)
		}
	}
	return &st, nil
}

// Find returns the subject with the given role, or nil.
func (st *Statement) Find(role string) *ResourceDescriptor {
	for i := range st.Subject {
		if r, _ := st.Subject[i].Annotations["role"].(string); r == role {
			return &st.Subject[i]
		}
	}
	return nil
}
