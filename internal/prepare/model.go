// Package prepare is a small context-assembly runtime: it searches an embedded
// SQLite store of Scope-qualified artifacts, fits the hits into a UTF-8 byte
// budget and renders a PreparedContext (policy powercontext.prepared-context.v1).
// On request it adds a content-free Receipt (powercontext.prepared-context-receipt.v1)
// that names exactly what was selected, what was omitted and why, which
// retrieval path ran and what budget was used, without the query or any body.
// An optional recall sufficiency gate expands thin recall by at most two
// rounds that lower the admission floor over the same candidate pool.
package prepare

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/gate"
)

// Schema and policy identifiers.
const (
	ContextSchema = gate.PreparedContext
	ReceiptSchema = "powercontext.prepared-context-receipt.v1"
	GatePolicyID  = "powercontext.recall-gate.v1"
	EffortSchema  = "powercontext.recall-effort.v1"
)

// Artifact families, as the Receipt names them.
const (
	FamilyMemory     = "atomic-memory"
	FamilyTopic      = "topic-memory"
	FamilyExperience = "experience"
	FamilyProfile    = "profile"
	FamilyCode       = "code"
)

// Families lists the five families in their canonical order.
var Families = []string{FamilyMemory, FamilyTopic, FamilyExperience, FamilyProfile, FamilyCode}

// Builder ceilings and limits (the seeds' PreparedContextBuilder constants).
const (
	MemoryCandidateLimit     = 16
	TopicCandidateLimit      = 8
	ExperienceCandidateLimit = 8
	ProfileLimit             = 8
	CodeLimit                = 4
	DefaultEntryLimit        = 8 // combined historical items without explicit sections
	MemoryEntryLimit         = 8
	TopicEntryLimit          = 8
	ExperienceEntryLimit     = 2
	MaxEntryContentBytes     = 2000
	MinTruncatedBytes        = 64
	MinMaxBytes              = 512
	MaxMaxBytes              = 32768
	DefaultMaxBytes          = 8000
	MaxQueryChars            = 4096
	ReceiptByteCap           = 16384 // seed 000 proposed 8192; revised by measurement (docs/usage.md, TestPayloadSizes)
)

// Receipt count caps.
const (
	MaxRounds        = 3
	MaxSearchGroups  = 32
	MaxRerankConfigs = 8
	MaxRerankGroups  = 32
	MaxSelected      = 32
	MaxOmitted       = 16
	MaxStages        = 8
)

// Omission reasons (closed enum).
const (
	OmitNotRetrieved        = "not_retrieved"
	OmitBelowAdmission      = "below_admission_floor"
	OmitDuplicate           = "duplicate"
	OmitCandidateLimit      = "candidate_limit"
	OmitEntryLimit          = "entry_limit"
	OmitBelowMinBytes       = "below_min_bytes"
	OmitNoFittingTruncation = "no_fitting_truncation"
)

// Search fallback reasons.
const (
	FallbackNone           = "none"
	FallbackUnavailable    = "inference_unavailable"
	FallbackTimeout        = "inference_timeout"
	FallbackReusedFTS      = "reused_fts_fallback"
	OutcomeCompleted       = "completed"
	OutcomeNotRun          = "not_run"
	OutcomeFailed          = "failed"
	RoundCompleted         = "completed"
	RoundExpansionFailed   = "expansion_failed"
	RerankSelected         = "selected"
	RerankFallback         = "fallback"
	RerankFailed           = "failed"
	RerankEmptySelection   = "empty_selection"
	RerankInvalidOutput    = "invalid_output"
	ModeFTS                = "fts"
	ModeVector             = "vector"
	ModeHybrid             = "hybrid"
	ModeSnapshot           = "snapshot"
	ModeCode               = "code"
	ModeNone               = "none"
	StatusReady            = "ready"
	StatusEmpty            = "empty"
	ArtifactStateActive    = "active"
	ArtifactStateForgotten = "forgotten"
	ArtifactStateMerged    = "merged"
	ArtifactStateRetired   = "retired"
)

// Address is a Scope-qualified artifact address at one exact revision.
type Address struct {
	ScopeID    string `json:"scope_id"`
	Family     string `json:"family"`
	ArtifactID string `json:"artifact_id"`
	Revision   int    `json:"revision"`
}

// CodeRef is a code evidence identity (not an artifact address).
type CodeRef struct {
	ScopeID       string `json:"scope_id"`
	Fingerprint   string `json:"fingerprint"`
	Path          string `json:"path"`
	FileSHA256    string `json:"file_sha256"`
	StartLine     int    `json:"start_line"`
	EndLine       int    `json:"end_line"`
	SnippetSHA256 string `json:"snippet_sha256"`
}

// Candidate is one searchable or readable unit: an atomic-memory entry, a
// topic, experience or profile revision, or a code snippet.
type Candidate struct {
	Addr           Address
	EntryID        string // atomic memory only
	EntryVersionID string // atomic memory only
	Code           *CodeRef
	Body           string
	Score          float64 // matched query terms / query terms; 0 for experience and code
	HasScore       bool
	round          int // the recall round that first contributed it
}

// key is the family's evidence identity: the entry for atomic memory, the
// revision for the other artifact families, for code the scope,
// fingerprint, path, file hash and line range (the snippet hash follows
// from those).
func (c Candidate) key() string {
	if r := c.Code; r != nil {
		return fmt.Sprint("code\x00", r.ScopeID, "\x00", r.Fingerprint, "\x00", r.Path, "\x00", r.FileSHA256, "\x00", r.StartLine, "-", r.EndLine)
	}
	k := c.Addr.ScopeID + "\x00" + c.Addr.Family + "\x00" + c.Addr.ArtifactID
	if c.Addr.Family == FamilyMemory {
		return k + "\x00" + c.EntryID + "\x00" + c.EntryVersionID
	}
	return k
}

// family returns the candidate's family.
func (c Candidate) family() string {
	if c.Code != nil {
		return FamilyCode
	}
	return c.Addr.Family
}

// PreparedContext is the injection value. Receipt is set only on request.
type PreparedContext struct {
	Schema       string   `json:"schema"`
	Status       string   `json:"status"`
	Content      *string  `json:"content"`
	ContentBytes int      `json:"content_bytes"`
	Receipt      *Receipt `json:"receipt,omitempty"`
}

// Receipt is the content-free explanation of one PreparedContext.
type Receipt struct {
	Schema            string         `json:"schema"`
	ReceiptID         string         `json:"receipt_id"`
	PolicyID          string         `json:"policy_id"`
	QueryDigest       string         `json:"query_digest"`
	ContentDigest     *string        `json:"content_digest"`
	RequestedMaxBytes int            `json:"requested_max_bytes"`
	UsedBytes         int            `json:"used_bytes"`
	Truncated         bool           `json:"truncated"`
	NonDeterministic  bool           `json:"non_deterministic"`
	Retrieval         Retrieval      `json:"retrieval"`
	Selected          []SelectedItem `json:"selected"`
	Omitted           []OmittedGroup `json:"omitted"`
	Stages            []StageTiming  `json:"stages"`
}

// Retrieval is the retrieval evidence of a Receipt.
type Retrieval struct {
	Rounds        []RecallRound  `json:"rounds"`
	Searches      []SearchGroup  `json:"searches"`
	RerankConfigs []RerankConfig `json:"rerank_configs"`
	Reranks       []RerankGroup  `json:"reranks"`
}

// RecallRound is one recall round's outcome.
type RecallRound struct {
	Round    int    `json:"round"`
	Outcome  string `json:"outcome"`
	Retained bool   `json:"retained"`
}

// SearchGroup aggregates search calls with equal grouping fields.
type SearchGroup struct {
	Round          int    `json:"round"`
	Family         string `json:"family"`
	Mode           string `json:"mode"`
	Outcome        string `json:"outcome"`
	FallbackReason string `json:"fallback_reason"`
	Count          int    `json:"count"`
}

// RerankGroup aggregates rerank invocations with equal grouping fields.
type RerankGroup struct {
	Round          int    `json:"round"`
	ConfigID       string `json:"config_id"`
	Outcome        string `json:"outcome"`
	FallbackReason string `json:"fallback_reason"`
	Count          int    `json:"count"`
}

// SelectedItem is one injected item: exactly one of ArtifactAddress and
// CodeEvidence is set.
type SelectedItem struct {
	ArtifactAddress *Address `json:"artifact_address,omitempty"`
	EntryID         string   `json:"entry_id,omitempty"`
	EntryVersionID  string   `json:"entry_version_id,omitempty"`
	CodeEvidence    *CodeRef `json:"code_evidence,omitempty"`
	RenderedBytes   int      `json:"rendered_bytes"`
	Truncated       bool     `json:"truncated"`
}

// OmittedGroup counts exclusions of one family for one reason.
type OmittedGroup struct {
	Family string `json:"family"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// StageTiming aggregates the runs of one stage.
type StageTiming struct {
	Stage      string `json:"stage"`
	DurationMS int64  `json:"duration_ms"`
	Count      int    `json:"count"`
}
