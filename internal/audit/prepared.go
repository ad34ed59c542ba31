package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/contextreceipts/convert/internal/prepare"
	"sort"
	"strings"
)

// Seed 000 (PreparedContext receipts) schema names and rule ids.
const (
	preparedSchema        = "powercontext.prepared-context.v1"
	preparedReceiptSchema = "powercontext.prepared-context-receipt.v1"

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
		{RulePCBounds, "more than 3 rounds, 32 searches, 8 rerank configs, 32 reranks, 32 selected, 16 omitted, 8 stages, or prepare.ReceiptByteCap serialized bytes"},
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

// prepared checks a seed 000 PreparedContext (with its receipt) or a bare
// PreparedContextReceipt.
func prepared(path string, d doc) []Finding {
	var fs []Finding
	add := func(rule, format string, a ...any) {
		fs = append(fs, Finding{path, d.line, rule, fmt.Sprintf(format, a...)})
	}
	outer, r := map[string]any(nil), d.v
	if str(d.v, "schema") == preparedSchema {
		outer = d.v
		rv, has := d.v["receipt"]
		if !has {
			return nil // no receipt asked for: nothing to audit
		}
		if rv == nil {
			add(RulePCNullReceipt, `"receipt": null is not equivalent to omitting the key`)
			return fs
		}
		r = obj(d.v, "receipt")
	}
	ret := obj(r, "retrieval")
	if r == nil || str(r, "schema") != preparedReceiptSchema || str(r, "policy_id") != preparedReceiptSchema || ret == nil {
		add(RulePCShape, "schema and policy_id must be %s, and retrieval must be present", preparedReceiptSchema)
		return fs
	}
	if raw, err := json.Marshal(r); err == nil && len(raw) > prepare.ReceiptByteCap {
		add(RulePCBounds, "the serialized receipt is %d bytes, over %d", len(raw), prepare.ReceiptByteCap)
	}
	for _, b := range []struct {
		m   map[string]any
		key string
		max int
	}{{ret, "rounds", 3}, {ret, "searches", 32}, {ret, "rerank_configs", 8}, {ret, "reranks", 32}, {r, "selected", 32}, {r, "omitted", 16}, {r, "stages", 8}} {
		if n := len(list(b.m, b.key)); n > b.max {
			add(RulePCBounds, "%s has %d entries, over %d", b.key, n, b.max)
		}
	}
	used, okUsed := num(r, "used_bytes")
	if max, ok := num(r, "requested_max_bytes"); ok && okUsed && used > max {
		add(RulePCBytes, "used_bytes %d exceeds requested_max_bytes %d", used, max)
	}
	if outer != nil {
		if cb, ok := num(outer, "content_bytes"); ok && okUsed && cb != used {
			add(RulePCBytes, "used_bytes %d is not content_bytes %d", used, cb)
		}
		empty := str(outer, "status") == "empty"
		if cd, isNull := r["content_digest"], r["content_digest"] == nil; empty != isNull {
			add(RulePCContentDigest, "content_digest must be null exactly when status is empty")
		} else if content, ok := outer["content"].(string); ok && !isNull {
			sum := sha256.Sum256([]byte(content))
			if got := hex.EncodeToString(sum[:]); got != strings.TrimPrefix(fmt.Sprint(cd), "sha256:") {
				add(RulePCContentDigest, "the injected content hashes to %s, content_digest records another digest", got)
			}
		}
	}
	anyTrunc := false
	for i, s := range list(r, "selected") {
		if s["truncated"] == true {
			anyTrunc = true
		}
		_, addr := s["artifact_address"]
		_, code := s["code_evidence"]
		if addr == code || s["artifact_address"] == nil && s["code_evidence"] == nil {
			add(RulePCIdentity, "selected[%d] must have exactly one of artifact_address and code_evidence", i)
		}
	}
	if t, ok := r["truncated"].(bool); !ok || t != anyTrunc {
		add(RulePCTruncated, "truncated is %v, a selected item truncated: %v", r["truncated"], anyTrunc)
	}
	enum := func(where, kind string, v any) {
		s, _ := v.(string)
		if !pcEnums[kind][s] {
			add(RulePCEnum, "%s: %s is not one of its closed set", where, strings.TrimPrefix(strings.TrimPrefix(kind, "search."), "rerank."))
		}
	}
	positive := func(where string, m map[string]any) {
		if n, ok := num(m, "count"); !ok || n < 1 {
			add(RulePCEnum, "%s: count must be a positive integer", where)
		}
	}
	for i, x := range list(ret, "rounds") {
		enum(fmt.Sprintf("rounds[%d]", i), "round.outcome", x["outcome"])
	}
	for i, x := range list(ret, "searches") {
		w := fmt.Sprintf("searches[%d]", i)
		enum(w, "family", x["family"])
		enum(w, "mode", x["mode"])
		enum(w, "search.outcome", x["outcome"])
		enum(w, "search.fallback", x["fallback_reason"])
		positive(w, x)
	}
	for i, x := range list(r, "omitted") {
		enum(fmt.Sprintf("omitted[%d]", i), "family", x["family"])
		positive(fmt.Sprintf("omitted[%d]", i), x)
	}
	configs := map[string]int{}
	var digests []string
	modelRan := false
	for i, c := range list(ret, "rerank_configs") {
		id, dg := str(c, "config_id"), str(c, "config_digest")
		if id == "" || id != dg {
			add(RulePCRerankConfig, "rerank_configs[%d]: config_id is not config_digest", i)
		}
		configs[id]++
		digests = append(digests, dg)
		if c["model"] != nil && c["non_deterministic"] != true {
			add(RulePCNonDeterm, "rerank_configs[%d] is model-backed but non_deterministic is not true", i)
		}
	}
	if !sort.StringsAreSorted(digests) {
		add(RulePCRerankConfig, "rerank_configs are not sorted by config_digest")
	}
	for i, g := range list(ret, "reranks") {
		w := fmt.Sprintf("reranks[%d]", i)
		if configs[str(g, "config_id")] != 1 {
			add(RulePCRerankConfig, "%s does not resolve to exactly one rerank config", w)
		}
		enum(w, "rerank.outcome", g["outcome"])
		enum(w, "rerank.fallback", g["fallback_reason"])
		positive(w, g)
		for _, c := range list(ret, "rerank_configs") {
			if str(c, "config_id") == str(g, "config_id") && c["non_deterministic"] == true {
				modelRan = true
			}
		}
	}
	if modelRan && r["non_deterministic"] != true {
		add(RulePCNonDeterm, "a model-backed rerank ran but the receipt's non_deterministic is not true")
	}
	return fs
}
