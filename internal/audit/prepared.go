package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/prepare"
)

// Seed 000 (PreparedContext receipts) schema names and rule ids.
const (
	preparedSchema        = prepare.ContextSchema
	preparedReceiptSchema = prepare.ReceiptSchema

	RulePCShape         = "pc.shape"
	RulePCNullReceipt   = "pc.receipt_null"
	RulePCBounds        = "pc.bounds"
	RulePCBytes         = "pc.used_bytes"
	RulePCContentDigest = "pc.content_digest"
	RulePCTruncated     = "pc.truncated"
	RulePCNonDeterm     = "pc.non_deterministic"
	RulePCRerankConfig  = "pc.rerank_config"
	RulePCEnum          = "pc.enum"
	RulePCIdentity      = "pc.selected_identity"
)

func init() {
	Rules = append(Rules, [][2]string{
		{RulePCShape, "a PreparedContext receipt lacks its schema, policy_id or retrieval lists"},
		{RulePCNullReceipt, `a PreparedContext carries "receipt": null (omission is required)`},
		{RulePCBounds, fmt.Sprintf("more than %d rounds, %d searches, %d rerank configs, %d reranks, %d selected, %d omitted, %d stages, or %d serialized bytes (prepare's own caps)",
			prepare.MaxRounds, prepare.MaxSearchGroups, prepare.MaxRerankConfigs, prepare.MaxRerankGroups, prepare.MaxSelected, prepare.MaxOmitted, prepare.MaxStages, prepare.ReceiptByteCap)},
		{RulePCBytes, "used_bytes is not content_bytes, or exceeds requested_max_bytes"},
		{RulePCContentDigest, "content_digest is not sha256 of the injected content, or is not null exactly when status is empty"},
		{RulePCTruncated, "truncated is not true exactly when a selected item is truncated"},
		{RulePCNonDeterm, "a model-backed rerank config is deterministic, or one ran and the receipt says non_deterministic false"},
		{RulePCRerankConfig, "config_id is not config_digest, configs are not sorted by digest, or a rerank group does not resolve to exactly one config"},
		{RulePCEnum, "a family, mode, outcome or fallback_reason outside its closed set, or a count that is not positive"},
		{RulePCIdentity, "a selected item has not exactly one of artifact_address and code_evidence"},
	}...)
}

var pcEnums = map[string]map[string]bool{
	"family":          set("atomic-memory", "topic-memory", "experience", "profile", "code"),
	"mode":            set("fts", "vector", "hybrid", "snapshot", "code", "none"),
	"search.outcome":  set("completed", "not_run", "failed"),
	"search.fallback": set("none", "inference_unavailable", "inference_timeout", "reused_fts_fallback"),
	"rerank.outcome":  set("selected", "fallback", "failed"),
	"rerank.fallback": set("none", "empty_selection", "inference_unavailable", "inference_timeout", "invalid_output"),
	"round.outcome":   set("completed", "expansion_failed"),
}

func set(vs ...string) map[string]bool {
	m := map[string]bool{}
	for _, v := range vs {
		m[v] = true
	}
	return m
}

func isPrepared(v map[string]any) bool {
	s := str(v, "schema")
	return s == preparedSchema || s == preparedReceiptSchema
}

func list(m map[string]any, k string) []map[string]any {
	a, _ := m[k].([]any)
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		o, _ := e.(map[string]any)
		out = append(out, o)
	}
	return out
}

// pcAudit collects the findings of one PreparedContext document.
type pcAudit struct {
	path string
	line int
	fs   []Finding
}

func (a *pcAudit) add(rule, format string, args ...any) {
	a.fs = append(a.fs, Finding{a.path, a.line, rule, fmt.Sprintf(format, args...)})
}

// prepared checks a seed 000 PreparedContext (with its receipt) or a bare
// PreparedContextReceipt.
func prepared(path string, d doc) []Finding {
	a := &pcAudit{path: path, line: d.line}
	outer, r, ok := a.receiptOf(d.v)
	if !ok {
		return a.fs
	}
	ret := obj(r, "retrieval")
	if r == nil || str(r, "schema") != preparedReceiptSchema || str(r, "policy_id") != preparedReceiptSchema || ret == nil {
		a.add(RulePCShape, "schema and policy_id must be %s, and retrieval must be present", preparedReceiptSchema)
		return a.fs
	}
	a.bounds(r, ret)
	a.usedBytes(outer, r)
	a.selected(r)
	a.enums(r, ret)
	a.reranks(r, ret)
	return a.fs
}

// receiptOf returns the enclosing PreparedContext (nil for a bare receipt)
// and the receipt to audit; false when there is nothing (more) to audit.
func (a *pcAudit) receiptOf(v map[string]any) (outer, r map[string]any, ok bool) {
	if str(v, "schema") != preparedSchema {
		return nil, v, true
	}
	rv, has := v["receipt"]
	if !has {
		return nil, nil, false // no receipt asked for: nothing to audit
	}
	if rv == nil {
		a.add(RulePCNullReceipt, `"receipt": null is not equivalent to omitting the key`)
		return nil, nil, false
	}
	return v, obj(v, "receipt"), true
}

// bounds checks the serialized size and every list's cap: the constants
// prepare itself enforces (one source, so audit never disagrees with what
// prepare keeps: the byte cap is the measured 16,384, not seed 000's 8,192).
func (a *pcAudit) bounds(r, ret map[string]any) {
	if raw, err := json.Marshal(r); err == nil && len(raw) > prepare.ReceiptByteCap {
		a.add(RulePCBounds, "the serialized receipt is %d bytes, over %d", len(raw), prepare.ReceiptByteCap)
	}
	for _, b := range []struct {
		m   map[string]any
		key string
		max int
	}{{ret, "rounds", prepare.MaxRounds}, {ret, "searches", prepare.MaxSearchGroups}, {ret, "rerank_configs", prepare.MaxRerankConfigs},
		{ret, "reranks", prepare.MaxRerankGroups}, {r, "selected", prepare.MaxSelected}, {r, "omitted", prepare.MaxOmitted}, {r, "stages", prepare.MaxStages}} {
		if n := len(list(b.m, b.key)); n > b.max {
			a.add(RulePCBounds, "%s has %d entries, over %d", b.key, n, b.max)
		}
	}
}

// usedBytes checks used_bytes against the budget and, inside a
// PreparedContext, against content_bytes, and content_digest against the
// injected content.
func (a *pcAudit) usedBytes(outer, r map[string]any) {
	used, okUsed := num(r, "used_bytes")
	if max, ok := num(r, "requested_max_bytes"); ok && okUsed && used > max {
		a.add(RulePCBytes, "used_bytes %d exceeds requested_max_bytes %d", used, max)
	}
	if outer == nil {
		return
	}
	if cb, ok := num(outer, "content_bytes"); ok && okUsed && cb != used {
		a.add(RulePCBytes, "used_bytes %d is not content_bytes %d", used, cb)
	}
	empty := str(outer, "status") == "empty"
	if cd, isNull := r["content_digest"], r["content_digest"] == nil; empty != isNull {
		a.add(RulePCContentDigest, "content_digest must be null exactly when status is empty")
	} else if content, ok := outer["content"].(string); ok && !isNull {
		sum := sha256.Sum256([]byte(content))
		if got := hex.EncodeToString(sum[:]); got != strings.TrimPrefix(fmt.Sprint(cd), "sha256:") {
			a.add(RulePCContentDigest, "the injected content hashes to %s, content_digest records another digest", got)
		}
	}
}

// selected checks each selected item's identity and the truncated flag.
func (a *pcAudit) selected(r map[string]any) {
	anyTrunc := false
	for i, s := range list(r, "selected") {
		if s["truncated"] == true {
			anyTrunc = true
		}
		_, addr := s["artifact_address"]
		_, code := s["code_evidence"]
		if addr == code || s["artifact_address"] == nil && s["code_evidence"] == nil {
			a.add(RulePCIdentity, "selected[%d] must have exactly one of artifact_address and code_evidence", i)
		}
	}
	if t, ok := r["truncated"].(bool); !ok || t != anyTrunc {
		a.add(RulePCTruncated, "truncated is %s, a selected item truncated: %v", shown(r["truncated"]), anyTrunc)
	}
}

func (a *pcAudit) enum(where, kind string, v any) {
	s, _ := v.(string)
	if !pcEnums[kind][s] {
		a.add(RulePCEnum, "%s: %s is not one of its closed set", where, strings.TrimPrefix(strings.TrimPrefix(kind, "search."), "rerank."))
	}
}

func (a *pcAudit) positive(where string, m map[string]any) {
	if n, ok := num(m, "count"); !ok || n < 1 {
		a.add(RulePCEnum, "%s: count must be a positive integer", where)
	}
}

// enums checks the closed sets and counts of rounds, searches and omissions.
func (a *pcAudit) enums(r, ret map[string]any) {
	for i, x := range list(ret, "rounds") {
		a.enum(fmt.Sprintf("rounds[%d]", i), "round.outcome", x["outcome"])
	}
	for i, x := range list(ret, "searches") {
		w := fmt.Sprintf("searches[%d]", i)
		a.enum(w, "family", x["family"])
		a.enum(w, "mode", x["mode"])
		a.enum(w, "search.outcome", x["outcome"])
		a.enum(w, "search.fallback", x["fallback_reason"])
		a.positive(w, x)
	}
	for i, x := range list(r, "omitted") {
		a.enum(fmt.Sprintf("omitted[%d]", i), "family", x["family"])
		a.positive(fmt.Sprintf("omitted[%d]", i), x)
	}
}

// reranks checks the rerank configs (ids, order, determinism) and that
// every rerank group resolves to exactly one of them.
func (a *pcAudit) reranks(r, ret map[string]any) {
	configs := map[string]int{}
	var digests []string
	for i, c := range list(ret, "rerank_configs") {
		id, dg := str(c, "config_id"), str(c, "config_digest")
		if id == "" || id != dg {
			a.add(RulePCRerankConfig, "rerank_configs[%d]: config_id is not config_digest", i)
		}
		configs[id]++
		digests = append(digests, dg)
		if c["model"] != nil && c["non_deterministic"] != true {
			a.add(RulePCNonDeterm, "rerank_configs[%d] is model-backed but non_deterministic is not true", i)
		}
	}
	if !sort.StringsAreSorted(digests) {
		a.add(RulePCRerankConfig, "rerank_configs are not sorted by config_digest")
	}
	modelRan := false
	for i, g := range list(ret, "reranks") {
		w := fmt.Sprintf("reranks[%d]", i)
		if configs[str(g, "config_id")] != 1 {
			a.add(RulePCRerankConfig, "%s does not resolve to exactly one rerank config", w)
		}
		a.enum(w, "rerank.outcome", g["outcome"])
		a.enum(w, "rerank.fallback", g["fallback_reason"])
		a.positive(w, g)
		for _, c := range list(ret, "rerank_configs") {
			if str(c, "config_id") == str(g, "config_id") && c["non_deterministic"] == true {
				modelRan = true
			}
		}
	}
	if modelRan && r["non_deterministic"] != true {
		a.add(RulePCNonDeterm, "a model-backed rerank ran but the receipt's non_deterministic is not true")
	}
}
