package prepare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/gowebpki/jcs"
)

// RerankConfig is one distinct rerank configuration that actually ran.
type RerankConfig struct {
	ConfigID          string         `json:"config_id"`
	PolicyID          string         `json:"policy_id"`
	Model             *string        `json:"model"`
	EffectiveSettings map[string]any `json:"effective_settings"`
	TimeoutSeconds    float64        `json:"timeout_seconds"`
	MaxRequests       int            `json:"max_requests"`
	ConfigDigest      string         `json:"config_digest"`
	Prompt            *PromptRef     `json:"prompt"`
	NonDeterministic  bool           `json:"non_deterministic"`
}

// PromptRef identifies the resolved Prompt bound to one rerank invocation.
type PromptRef struct {
	ScopeID           string   `json:"scope_id"`
	Key               string   `json:"key"`
	DefinitionVersion int      `json:"definition_version"`
	BuiltinVersion    int      `json:"builtin_version"`
	Selection         string   `json:"selection"` // built_in or artifact
	SelectedVersion   int      `json:"selected_version"`
	CompiledDigest    string   `json:"compiled_digest"`
	ArtifactAddress   *Address `json:"artifact_address"`
}

// RerankEvidence is what a reranker must declare about one invocation. A
// model-backed reranker names its model and resolved Prompt; a deterministic
// one declares itself and names its algorithm and version in Settings.
type RerankEvidence struct {
	Declared       bool // false: the reranker supplied no evidence
	ModelBacked    bool
	PolicyID       string
	Model          *string
	Settings       map[string]any
	TimeoutSeconds float64
	MaxRequests    int
	Prompt         *PromptRef
}

// RerankResult is one invocation's outcome: Order indexes the input
// candidates (ignored unless Outcome is selected).
type RerankResult struct {
	Order          []int
	Outcome        string // selected, fallback or failed
	FallbackReason string // none, empty_selection, inference_unavailable, inference_timeout, invalid_output
	Evidence       *RerankEvidence
}

// Reranker reorders one Memory search's admitted candidates. ModelBacked
// declares, before any call, whether an invocation is a paid, model-backed
// generation call: the gate reads it to decide whether an expansion round
// would pay extra calls. Its evidence must agree with the declaration.
type Reranker interface {
	Rerank(ctx context.Context, query string, cands []Candidate) RerankResult
	ModelBacked() bool
}

// rerankConfigVersion versions the config record and its settings allowlist.
const rerankConfigVersion = "convert.rerank-config.v1"

// settingKinds is the versioned allowlist of safe effective settings.
var settingKinds = map[string]string{
	"temperature": "number", "top_p": "number", "max_output_tokens": "int", "seed": "int",
	"top_n": "int", "algorithm": "token", "algorithm_version": "token",
}

var errEvidence = errors.New("rerank evidence missing or incomplete")

// configOf turns declared evidence into a RerankConfig with its digest, or
// fails when the configuration cannot be represented completely and safely.
func configOf(ev *RerankEvidence) (RerankConfig, error) {
	if ev == nil || !ev.Declared || !receipt.IsToken(ev.PolicyID) || ev.MaxRequests < 1 || ev.TimeoutSeconds <= 0 {
		return RerankConfig{}, errEvidence
	}
	if ev.ModelBacked {
		if ev.Model == nil || !receipt.IsToken(*ev.Model) || ev.Prompt == nil {
			return RerankConfig{}, errEvidence
		}
		p := ev.Prompt
		if !receipt.IsToken(p.ScopeID) || !receipt.IsToken(p.Key) || !receipt.IsDigest(p.CompiledDigest) ||
			(p.Selection == "built_in") != (p.ArtifactAddress == nil) || (p.Selection != "built_in" && p.Selection != "artifact") ||
			(p.ArtifactAddress != nil && (p.ArtifactAddress.Family != "prompt" || !receipt.IsToken(p.ArtifactAddress.ScopeID) || !receipt.IsToken(p.ArtifactAddress.ArtifactID) || p.ArtifactAddress.Revision < 1)) {
			return RerankConfig{}, errEvidence
		}
	} else if ev.Model != nil || ev.Prompt != nil || ev.Settings["algorithm"] == nil || ev.Settings["algorithm_version"] == nil {
		return RerankConfig{}, errEvidence
	}
	for k, v := range ev.Settings {
		if !settingOK(settingKinds[k], v) {
			return RerankConfig{}, fmt.Errorf("rerank setting not representable: %w", errEvidence)
		}
	}
	settings := ev.Settings
	if settings == nil {
		settings = map[string]any{}
	}
	rec := map[string]any{
		"version": rerankConfigVersion, "policy_id": ev.PolicyID, "model": ev.Model, "effective_settings": settings,
		"timeout_seconds": ev.TimeoutSeconds, "max_requests": ev.MaxRequests, "prompt": ev.Prompt,
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return RerankConfig{}, err
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return RerankConfig{}, err
	}
	d := digest(c)
	return RerankConfig{ConfigID: d, PolicyID: ev.PolicyID, Model: ev.Model, EffectiveSettings: settings,
		TimeoutSeconds: ev.TimeoutSeconds, MaxRequests: ev.MaxRequests, ConfigDigest: d, Prompt: ev.Prompt,
		NonDeterministic: ev.ModelBacked}, nil
}

func settingOK(kind string, v any) bool {
	switch kind {
	case "number":
		f, ok := v.(float64)
		return ok && !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 && f <= 2
	case "int":
		switch n := v.(type) {
		case int:
			return n >= 0
		case float64:
			return n >= 0 && n == math.Trunc(n)
		}
	case "token":
		s, ok := v.(string)
		return ok && receipt.IsToken(s)
	}
	return false
}

// LexicalReranker is the built-in deterministic, non-model reranker: it
// orders candidates by query-term coverage, ties kept in search order.
type LexicalReranker struct{}

// The built-in reranker's configuration constants. They are program
// vocabulary: a query that names them is not leaked by the receipt.
const (
	LexicalPolicyID         = "convert.rerank.lexical.v1"
	LexicalAlgorithm        = "lexical-coverage"
	LexicalAlgorithmVersion = "1"
)

// ModelBacked implements Reranker: the lexical reranker makes no model call.
func (LexicalReranker) ModelBacked() bool { return false }

// Rerank implements Reranker.
func (LexicalReranker) Rerank(_ context.Context, _ string, cands []Candidate) RerankResult {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return cands[order[i]].Score > cands[order[j]].Score })
	out := RerankResult{Order: order, Outcome: RerankSelected, FallbackReason: FallbackNone}
	if len(cands) == 0 {
		out.Outcome, out.FallbackReason = RerankFallback, RerankEmptySelection
	}
	out.Evidence = &RerankEvidence{Declared: true, PolicyID: LexicalPolicyID,
		Settings:       map[string]any{"algorithm": LexicalAlgorithm, "algorithm_version": LexicalAlgorithmVersion, "top_n": MemoryCandidateLimit},
		TimeoutSeconds: 1, MaxRequests: 1}
	return out
}
