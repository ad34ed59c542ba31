package prepare

// The requirements of seeds 000 (PreparedContext receipts) and 001 (recall
// sufficiency gate), each with where it is met and the tests that prove it.
// TestRequirements checks that every test and every code location named here
// exists, and that REQUIREMENTS.md is this table (go test -run
// TestRequirements -update rewrites it).

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requirement is one row. Where names "path:Symbol" (Symbol a func, type,
// var, const or "Type.Method" declared in that file) or a plain file;
// Tests names test functions of internal/prepare, or "cmd/TestX" of
// cmd/convert ("TestX/sub" names a subtest of TestX).
type requirement struct {
	ID, Text string
	Where    []string
	Tests    []string
	Status   string // met, partly, revised, extension, documented, not here
	Note     string
}

const (
	rp = "internal/prepare/"
	cp = "cmd/convert/cmd_prepare.go:"
)

var requirements = []requirement{
	// Seed 000: PreparedContext receipts.
	{ID: "000-01", Text: "Without include_receipt (absent, null or false) the response is exactly schema, status, content, content_bytes: no receipt key, never \"receipt\": null.",
		Where: []string{rp + "model.go:PreparedContext", rp + "output.go:Render", cp + "readRequest"}, Tests: []string{"TestFourKeysUnlessRequested", "cmd/TestPrepareCLI"}, Status: "met"},
	{ID: "000-02", Text: "With include_receipt a ready and an empty result both get a receipt; the empty one keeps query digest, budget, retrieval path and omission counts, with content_digest null.",
		Where: []string{rp + "receipt.go:prep.receipt"}, Tests: []string{"TestResultKinds", "TestFourKeysUnlessRequested"}, Status: "met"},
	{ID: "000-03", Text: "No server-side default turns receipts on: the flag is per request only.",
		Where: []string{cp + "flagRequest"}, Tests: []string{"cmd/TestPrepareCLI"}, Status: "met", Note: "no environment variable or config enables it"},
	{ID: "000-04", Text: "The receipt is untrusted metadata and must never be injected into a prompt; the injection value stays content.",
		Where: []string{"docs/usage.md"}, Status: "documented"},
	{ID: "000-05", Text: "A receipt never holds the query or any selected body, and neither does a failure diagnostic; an honest identity that merely looks like an assignment (password:rotation-policy: a key word, a colon, two or more lower-case words) is not a secret and keeps the receipt, while credential-shaped ids (password:hunter2, api_key:abcd1234efgh, ghp_...) still drop it.",
		Where: []string{rp + "check.go:LeakCheck", rp + "output.go:Render", rp + "check.go:honestID"}, Tests: []string{"TestNoForbiddenContent", "TestReceiptFailuresKeepInjection", "TestHonestIDsAreNotSecrets", "cmd/TestPrepareCLI"}, Status: "met",
		Note: "reading (issue #38): the seed forbids content, not honest identities; only the secret_assignment shape with a plain-words value is spared, and a diceware-style passphrase used as an id would be spared too"},
	{ID: "000-06", Text: "Receipt assembly never changes or blocks the injection: any failure (leak, count cap, byte cap, incomplete identity, missing rerank evidence, schema) drops the receipt, returns the PreparedContext of the same request without the flag, and logs a content-free reason.",
		Where: []string{rp + "runtime.go:Runtime.Prepare", rp + "output.go:Render"}, Tests: []string{"TestReceiptFailuresKeepInjection", "TestSelectedIdentitiesMustEqualOrigins", "TestRerankConfigs/missing_evidence_fails_open", "cmd/TestPrepareReceiptFailOpen", "cmd/TestPrepareDiagnosticsFailOpen"}, Status: "met"},
	{ID: "000-07", Text: "A program constant quoted by the query (the built-in reranker's algorithm name, schema and policy ids, trace names) is vocabulary, not a leak.",
		Where: []string{"internal/gate/gate.go:Vocabulary", "internal/vocab/vocab.go:Sources"}, Tests: []string{"TestReceiptFailuresKeepInjection/a_program_constant_in_the_query_is_not_a_leak", "cmd/TestPrepareReceiptFailOpen"}, Status: "met"},
	{ID: "000-08", Text: "query_digest is sha256 over the UTF-8 of NFC(trimmed query), trimmed as the reference's str.strip trims (White_Space plus U+001C-U+001F); no byte limit applies, so a 2731-character non-ASCII query over 8192 bytes keeps its receipt.",
		Where: []string{rp + "text.go:NormalizeQuery", rp + "text.go:trimQuery"}, Tests: []string{"TestLongNonASCIIQuery", "TestSmallerSeedCases/normalization"}, Status: "met"},
	{ID: "000-09", Text: "content_digest is the digest of the returned UTF-8 content; used_bytes equals content_bytes; requested_max_bytes is the budget.",
		Where: []string{rp + "receipt.go:prep.receipt"}, Tests: []string{"TestResultKinds", "TestKeyedDigests"}, Status: "met"},
	{ID: "000-10", Text: "truncated is true when any selected item was cut; each item has rendered_bytes (its fragment, separators excluded) and its own truncated flag.",
		Where: []string{rp + "build.go:fit"}, Tests: []string{"TestResultKinds", "TestCodeResults"}, Status: "met"},
	{ID: "000-11", Text: "non_deterministic describes execution: true when a model-backed rerank ran (also at temperature zero and on fallback), false when a configured reranker never ran.",
		Where: []string{rp + "receipt.go:prep.receipt"}, Tests: []string{"TestRerankConfigs", "TestResultKinds", "TestEnabledButUnusedRerankerBlocksExpansion"}, Status: "met"},
	{ID: "000-12", Text: "receipt_id is an opaque UUID, never a fetch key; there is no fetch-by-receipt operation and receipts are not persisted.",
		Where: []string{rp + "runtime.go:randomUUID", "schemas/prepare/receipt.schema.json"}, Tests: []string{"TestGoldenDemo", "cmd/TestPrepareIsReadOnly"}, Status: "met"},
	{ID: "000-13", Text: "Every selected historical item is a Scope-qualified artifact address at its exact revision (Atomic Memory adds entry_id and entry_version_id); one artifact id in two scopes is two identities.",
		Where: []string{rp + "model.go:SelectedItem", rp + "model.go:Address"}, Tests: []string{"TestSameShortIDInTwoScopes", "TestResultKinds"}, Status: "met"},
	{ID: "000-14", Text: "Code evidence is scope, fingerprint, path, file_sha256, start_line, end_line, snippet_sha256, never an artifact address; the two identity forms exclude each other.",
		Where: []string{rp + "model.go:CodeRef", "schemas/prepare/receipt.schema.json"}, Tests: []string{"TestCodeResults", "TestCodeIdentityHasPath"}, Status: "met"},
	{ID: "000-15", Text: "Selected items follow injection order and equal the build's origins followed by its code origins exactly; a missing, extra, reordered or ambiguous identity invalidates the whole receipt.",
		Where: []string{rp + "receipt.go:checkReceipt"}, Tests: []string{"TestSelectedIdentitiesMustEqualOrigins", "TestCodeResults"}, Status: "met"},
	{ID: "000-16", Text: "A truncated code item carries its final line range and the hash of the snippet injected; a code body with no whole line that fits, or whose fitting lines are under the 64-byte floor, is dropped (no_fitting_truncation), never injected as a header without code.",
		Where: []string{rp + "build.go:cut", rp + "build.go:fit"}, Tests: []string{"TestCodeResults", "TestCodeCutHonestly", "cmd/TestPrepareCodeRead"}, Status: "met"},
	{ID: "000-17", Text: "Code identity includes the path, file hash and line range: two files of one repository whose ranges start on the same line load and are selected as two identities.",
		Where: []string{rp + "store.go:codeID", rp + "model.go:Candidate.key"}, Tests: []string{"TestCodeIdentityHasPath", "cmd/TestPrepareCodeRead"}, Status: "met"},
	{ID: "000-18", Text: "The 32-item cap covers the explicit assembly maximum of 26 historical items (8 memory, 8 topic, 8 profile, 2 experience) plus 4 code; the default builder's combined limit is 8 and includes Topic Memory; limits and budget, not the receipt, decide selection.",
		Where: []string{rp + "build.go:defaultSections", rp + "model.go:DefaultEntryLimit"}, Tests: []string{"TestMixedAssembly18And26", "TestTopicMemoryInDefaultRecall"}, Status: "met"},
	{ID: "000-19", Text: "RecallRound has round 0-2, outcome completed or expansion_failed, and retained: whether that round's pool contributes to the final build (round 0 always; a failed round or one that added nothing never).",
		Where: []string{rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestFailedAndEmptyRounds", "TestSearchEvidence"}, Status: "met"},
	{ID: "000-20", Text: "SearchGroup aggregates calls by round, family, actual mode, outcome and fallback_reason with a positive count, deterministically sorted; the memory selector is family atomic-memory, text search is mode fts, profile is snapshot, code is code; auto is never a mode.",
		Where: []string{rp + "receipt.go:groupSearches", rp + "runtime.go:ParseSections"}, Tests: []string{"TestSearchEvidence"}, Status: "met"},
	{ID: "000-21", Text: "A family the request does not select has no group; a selected family without a reader has a not_run group counting skipped opportunities; a zero-hit Atomic Memory search is completed with its mode.",
		Where: []string{rp + "runtime.go:prep.recall"}, Tests: []string{"TestSearchEvidence"}, Status: "met"},
	{ID: "000-22", Text: "fallback_reason is none for ordinary FTS, the observed class (inference_unavailable, inference_timeout) for every search of the round whose embedding failed, and reused_fts_fallback only in a later round reusing it.",
		Where: []string{rp + "runtime.go:prep.searchOne"}, Tests: []string{"TestSearchEvidence", "TestFailedAndEmptyRounds/embed_timeout_in_round_0_is_not_a_reuse"}, Status: "met"},
	{ID: "000-23", Text: "Groups count the calls that ran, abandoned rounds included; Topic Memory, Profile and code run once in the current scope and are not multiplied by referenced scopes; groups carry no scope ids.",
		Where: []string{rp + "runtime.go:prep.scopesFor"}, Tests: []string{"TestSearchEvidence"}, Status: "met"},
	{ID: "000-24", Text: "RerankConfig: config_id equals config_digest, sha256 over RFC 8785 JSON of a versioned record (policy, model, effective settings, timeout, request limit, Prompt identity); configs sorted by digest; every rerank group resolves to exactly one config.",
		Where: []string{rp + "rerank.go:configOf", rp + "receipt.go:CheckCaps"}, Tests: []string{"TestRerankConfigs", "TestCountCaps/rerank_group_without_config"}, Status: "met"},
	{ID: "000-25", Text: "effective_settings is a versioned allowlist of safe names and types; a credential, URL, unknown or mistyped setting makes the configuration unrepresentable and the receipt is dropped.",
		Where: []string{rp + "rerank.go:settingKinds", rp + "rerank.go:settingOK"}, Tests: []string{"TestRerankConfigs/missing_evidence_fails_open"}, Status: "met"},
	{ID: "000-26", Text: "The Prompt identity is the resolved Prompt of the invocation (scope, key, versions, selection, compiled digest, artifact address); two scopes with different Prompts never share a config; settings or compiled Prompt changes change the digest.",
		Where: []string{rp + "rerank.go:PromptRef"}, Tests: []string{"TestRerankConfigs"}, Status: "met"},
	{ID: "000-27", Text: "A deterministic reranker declares itself (prompt null, non_deterministic false, algorithm and version named); missing model metadata does not make a reranker deterministic, and a declaration that disagrees with the evidence is a receipt failure.",
		Where: []string{rp + "rerank.go:LexicalReranker", rp + "rerank.go:Reranker", rp + "runtime.go:prep.rerank"}, Tests: []string{"TestResultKinds", "TestRerankConfigs", "TestRerankDeclarationMustMatchEvidence"}, Status: "met"},
	{ID: "000-28", Text: "RerankGroup is round, config_id, outcome (selected, fallback, failed), fallback_reason, count; a fallback still records the config invoked; no invocation means no group and no config.",
		Where: []string{rp + "receipt.go:prep.receipt"}, Tests: []string{"TestResultKinds", "TestEnabledButUnusedRerankerBlocksExpansion"}, Status: "met"},
	{ID: "000-29", Text: "OmittedGroup is family, closed reason, positive count, grouped; below_min_bytes and no_fitting_truncation keep the Builder's two drop paths and sum to dropped_items; a successful truncation is not an omission.",
		Where: []string{rp + "receipt.go:omissions"}, Tests: []string{"TestBudgetDrops", "TestCodeCutHonestly"}, Status: "met"},
	{ID: "000-30", Text: "not_retrieved is count 1 per selected family with no candidate for the final build (missing reader and zero hits included), absent when the family had candidates even if all were dropped.",
		Where: []string{rp + "receipt.go:omissions"}, Tests: []string{"TestResultKinds", "TestSearchEvidence", "TestBudgetDrops"}, Status: "met"},
	{ID: "000-31", Text: "Other omissions count exclusion events in the bounded pools of the retained rounds and the final build, summed over every retained round (round 0's below-floor events stay when an expansion is kept): a repeated identity counts as duplicate; abandoned and non-contributing rounds add nothing; counting costs no extra search.",
		Where: []string{rp + "runtime.go:prep.retain", rp + "runtime.go:fresh", rp + "receipt.go:omissions"}, Tests: []string{"TestResultKinds/deduplicated_by_hybrid_fusion", "TestSearchEvidence/failed_expansion_keeps_round_zero_only", "TestNoExtraCallsForReceipt", "TestRound0ExclusionsSurviveExpansion", "TestGateCountsFromTheirRound"}, Status: "met",
		Note: "reading (issue #51): a duplicate is an identity found twice within a round's pool (both channels of hybrid fusion), one event per identity over the retained rounds; a later round finding a committed item again is the same candidate, not a duplicate (before, every later round counted each re-found round-0 item again)"},
	{ID: "000-32", Text: "StageTiming aggregates each stage that ran (durations summed, instances counted), abandoned rounds included, with no per-scope timings.",
		Where: []string{rp + "runtime.go:prep.stage"}, Tests: []string{"TestStageTimings"}, Status: "met"},
	{ID: "000-33", Text: "Count caps: 3 rounds, 32 search groups, 8 rerank configs, 32 rerank groups, 32 selected, 16 omitted, 8 stages; any overflow drops the whole receipt, never a truncated one.",
		Where: []string{rp + "receipt.go:CheckCaps"}, Tests: []string{"TestCountCaps", "TestReceiptFailuresKeepInjection/count_cap:_nine_rerank_configs"}, Status: "met"},
	{ID: "000-34", Text: "The byte budget is checked on the exact serialized receipt and measured on representative mixed-family, cross-scope, reranked payloads with real identity lengths; the budget is revised from the measurement.",
		Where: []string{rp + "model.go:ReceiptByteCap", rp + "receipt.go:CheckCaps", rp + "runtime.go:prep.receiptOrDiagnostic", rp + "output.go:Render"}, Tests: []string{"TestPayloadSizes", "TestReceiptFitsRealisticIDs", "TestReceiptFailuresKeepInjection/byte_cap", "TestKeyedReceiptByteCap", "cmd/TestPrepareAuditAgreesOnReceiptCap"}, Status: "revised",
		Note: "8192 -> 16384 bytes: the 26+4 assembly with UUID ids measures 9,696 bytes (10,890 with two Prompts and three rounds), so at 8192 it never had a receipt; 128-byte ids (19,197 bytes) still drop; convert audit's pc.bounds reads the same constant; since issue #51 the cap is checked on the receipt as printed, after keyed digests replace the ids (before, a keyed receipt was printed at 16,479 bytes)"},
	{ID: "000-35", Text: "include_receipt causes no additional recall or model call.",
		Where: []string{rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestNoExtraCallsForReceipt"}, Status: "met"},
	{ID: "000-36", Text: "Receipts are not persisted; prepare writes nothing to the store: it opens the store read-only and query-only, creates no schema, and refuses a missing, empty or foreign file, left byte-identical.",
		Where: []string{rp + "store.go:OpenReadOnly", cp + "openStore"}, Tests: []string{"cmd/TestPrepareIsReadOnly", "cmd/TestPrepareStoreRefusals"}, Status: "met",
		Note: "before issue #51 prepare opened the store read-write and ran its schema: an empty file got a 45 KB schema"},
	{ID: "000-37", Text: "Progressive inspection uses exact reads: a recorded revision stays readable after forget, merge or retire, a newer head is never followed, another scope never resolves it; code is read by scope, fingerprint, path, file hash and line range, truncated ranges included.",
		Where: []string{rp + "store.go:Store.Read", rp + "store.go:Store.ReadCode", rp + "store.go:Store.ResolveKeyed", cp + "prepareReadCommand"}, Tests: []string{"TestExactReadAfterLifecycle", "cmd/TestPrepareLoadAndRead", "cmd/TestPrepareCodeRead", "TestKeyedDigests", "cmd/TestPrepareKeyedRead"}, Status: "met",
		Note: "in keyed mode too (issue #51): before, the artifact, entry and version ids of a keyed receipt could not be read back"},
	{ID: "000-38", Text: "Authorization: grants per scope for a named caller; reads are authorized now, not when the receipt was made; a denied read fails exactly like an unavailable revision; a referenced scope the caller may not read is never searched and leaves no trace in the receipt.",
		Where: []string{rp + "store.go:Store.Access", rp + "store.go:Access", rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestAuthorization", "cmd/TestPrepareAuthorization"}, Status: "met"},
	{ID: "000-39", Text: "Acceptance workloads: empty, ready, truncated, deduplicated, reranked, fallback; mixed assembly with 18 and 26 historical items; code-only and mixed code.",
		Tests: []string{"TestResultKinds", "TestMixedAssembly18And26", "TestCodeResults"}, Where: []string{rp + "build.go:fit"}, Status: "met"},
	{ID: "000-40", Text: "Equivalent receipt semantics on SQLite and OceanBase.",
		Where: []string{rp + "store.go:Open"}, Status: "not here", Note: "no OceanBase on this machine; one embedded SQLite store (FTS5) only"},
	{ID: "000-41", Text: "OpenAPI, generated clients and host validators regenerated; no schema migration.",
		Where: []string{"schemas/prepare/prepared-context.schema.json"}, Status: "not here", Note: "no server or OpenAPI here: the CLI and the JSON schemas are the contract; the store adds tables with CREATE IF NOT EXISTS, and issue #51's live index is one store migration (user_version 2) that the next prepare load makes (prepare itself never writes: it refuses an older store with that advice); its postings (user_version 3) are another, and prepare reads a version 2 store as it is, ranked by FTS5"},
	{ID: "000-42", Text: "Keyed mode (issue #15 item 6): --hash-key-file or CONVERT_HASH_KEY_FILE makes every input-derived digest prepare writes (query, content, code file and snippet, trace) an HMAC-SHA256 under that key.",
		Where: []string{rp + "runtime.go:Options", cp + "prepareHasher"}, Tests: []string{"TestKeyedDigests", "cmd/TestPrepareKeyed"}, Status: "extension",
		Note: "the seed says sha256:<hex>; keyed digests are hmac-sha256:<hex>, plain mode is unchanged"},

	// Seed 001: recall sufficiency gate.
	{ID: "001-01", Text: "The gate is off unless configured; a run that does not expand is byte-identical to the gate off.",
		Where: []string{rp + "runtime.go:Options", cp + "prepareAction"}, Tests: []string{"TestGateOffIsByteIdentical"}, Status: "met"},
	{ID: "001-02", Text: "The gate is a pure, model-free function of the candidate set's signals, the admission counters and the budget probe, and returns its reason with the signal values that produced it (content-free: counts, a bucketed best-score ratio).",
		Where: []string{rp + "gate.go:Assess", rp + "gate.go:GateSignals"}, Tests: []string{"TestAssess", "TestAssessmentSignals"}, Status: "met"},
	{ID: "001-03", Text: "Thresholds and floors are a versioned policy from deployment configuration (never a request parameter), named in the RecallEffort and the trace by id and by the digest of its values; a policy reusing the built-in id with other thresholds is invalid.",
		Where: []string{rp + "gate.go:GatePolicy", rp + "gate.go:ParseGatePolicy", rp + "gate.go:GatePolicy.Digest", rp + "check.go:Trace"}, Tests: []string{"TestExpand", "TestPolicyIdentity", "TestSmallerSeedCases/trace_names_the_policy", "cmd/TestPrepareRecallPolicy", "cmd/TestPrepareInvalidPolicyMeansNoExpansion"}, Status: "met",
		Note: "reading (issue #38): a versioned id names one frozen set of thresholds (the seed's frozen, versioned value object), so the built-in id with other values is refused; every run also records sha256 of the values, so two custom policies sharing an id stay distinguishable"},
	{ID: "001-04", Text: "At most two expansion rounds; each only lowers the admission floor over the same pool: never a larger limit or pool, never another mode, never another family.",
		Where: []string{rp + "gate.go:Expand", rp + "runtime.go:prep.searchOne"}, Tests: []string{"TestExpand", "TestGateRounds", "TestSearchEvidence/later_rounds_reuse_the_fts_fallback"}, Status: "met"},
	{ID: "001-05", Text: "Only Atomic Memory, Topic Memory and Experience are expanded; Profile never, and a profile-only request never expands.",
		Where: []string{rp + "runtime.go:searchable"}, Tests: []string{"TestGateRounds", "TestAssess"}, Status: "met"},
	{ID: "001-06", Text: "The caller's selected family set is never widened.",
		Where: []string{rp + "runtime.go:prep.recall"}, Tests: []string{"TestGateRounds"}, Status: "met"},
	{ID: "001-07", Text: "An empty scope is no-content and never expands; an explicit empty section list is a normal empty result without expansion.",
		Where: []string{rp + "gate.go:Assess"}, Tests: []string{"TestAssess", "TestGateOffIsByteIdentical", "TestEmptyAssembly"}, Status: "met"},
	{ID: "001-08", Text: "The budget probe runs the Builder's fitting over the candidate set; budget-bound thinness (an item cut to or dropped for lack of the bytes left, little unused budget, the 512-byte floor) reports instead of expanding; a cut to the 2,000-byte per-entry cap is not the budget.",
		Where: []string{rp + "runtime.go:prep.expand", rp + "gate.go:BudgetView"}, Tests: []string{"TestAssess", "TestBudgetDrops", "TestBudgetBoundMeansTheBudget"}, Status: "met"},
	{ID: "001-09", Text: "A family saturated in round 0 receives no later candidate and is not searched again; nor is a family whose round-0 pool was empty (a lower floor over the same empty pool cannot add).",
		Where: []string{rp + "runtime.go:prep.assess"}, Tests: []string{"TestSaturatedFamilyGetsNothingLater", "TestEmptyFamiliesNotSearchedAgain"}, Status: "met"},
	{ID: "001-10", Text: "Merge: round 0, then each later round's new identities in round order, deduplicated by the family's evidence identity (memory entry, artifact revision, code range); the earlier occurrence wins.",
		Where: []string{rp + "runtime.go:fresh", rp + "model.go:Candidate.key"}, Tests: []string{"TestMergeKeepsCeilingAndPrefix", "TestCodeIdentityHasPath"}, Status: "met"},
	{ID: "001-11", Text: "Reselection uses the round-robin allocators across scope groups and can never exceed a family ceiling: two rounds of 16 hits differing by one build.",
		Where: []string{rp + "runtime.go:allocate"}, Tests: []string{"TestMergeKeepsCeilingAndPrefix"}, Status: "met"},
	{ID: "001-12", Text: "Expansion may only add: no round-0 candidate or selected item is ever displaced, with several scopes too: not by the ceiling clamp, not in the content, and not in the bytes (round 0's items, code included, are fitted before any later round's).",
		Where: []string{rp + "runtime.go:allocate", rp + "build.go:fit"}, Tests: []string{"TestExpansionNeverDisplacesRound0AcrossScopes", "TestGateRounds", "TestExpansionOnlyAdds"}, Status: "met"},
	{ID: "001-13", Text: "content_bytes never exceeds max_bytes; expansion is stopped by the budget, never crosses it.",
		Where: []string{rp + "build.go:fit"}, Tests: []string{"TestGateRounds", "TestBudgetDrops", "FuzzPrepare"}, Status: "met"},
	{ID: "001-14", Text: "One insufficient round leads to one committed expansion; a second insufficient one stops after two; a round with no new identity leaves the earlier set and a flat candidates_by_round.",
		Where: []string{rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestGateRounds"}, Status: "met"},
	{ID: "001-15", Text: "Rounds are all-or-nothing: one failed search discards the round and the committed result stands; rounds counts passes executed, expansion_actions committed rounds only, candidates_by_round one entry per executed round.",
		Where: []string{rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestFailedRoundDiscardsStage", "TestFailedAndEmptyRounds/failed_round", "TestSearchEvidence"}, Status: "met"},
	{ID: "001-16", Text: "If round 0 fails, prepare fails as it does without the gate.",
		Where: []string{rp + "runtime.go:Runtime.Prepare"}, Tests: []string{"TestRound0FailureFailsPrepare"}, Status: "met"},
	{ID: "001-17", Text: "The gate fails closed: absent or invalid configuration (an unreadable, malformed or invalid policy) means no expansion with a content-free diagnostic, and the gate never turns a successful prepare into a failure.",
		Where: []string{rp + "gate.go:GatePolicy.Check", rp + "runtime.go:Runtime.Prepare", cp + "prepareOptions"}, Tests: []string{"cmd/TestPrepareInvalidPolicyMeansNoExpansion", "TestGateOffIsByteIdentical", "TestPolicyIdentity"}, Status: "met"},
	{ID: "001-18", Text: "RecallEffort reports policy, assessment (the final gate reason, also under a policy with no expansion), rounds, expansion actions, candidates by round, admission by family (memory, experience, topic-memory; last executed round), added embeddings and generation calls, truncated and dropped items with the two drop sub-counts summing to dropped_items.",
		Where: []string{rp + "gate.go:RecallEffort", rp + "gate.go:effortFamily", "schemas/prepare/recall-effort.schema.json"}, Tests: []string{"TestGateRounds", "TestBudgetDrops", "TestGateSkipsExpansionThatWouldPayRerankCalls", "TestZeroExpansionPolicy", "TestAdmissionFamilyNames", "TestGateCountsFromTheirRound"}, Status: "met",
		Note: "reading (issue #51): each family and scope reports the last executed round that measured it, a failed last round included for the searches it completed; one it did not reach keeps its last measurement (before, a failed last round reported the last committed round's counts)"},
	{ID: "001-19", Text: "Admission counters cover Atomic Memory, Experience and Topic Memory per scope (not code) and are not collected when the gate is off.",
		Where: []string{rp + "runtime.go:prep.searchOne"}, Tests: []string{"TestSmallerSeedCases"}, Status: "met"},
	{ID: "001-20", Text: "RecallEffort goes to an optional sink only, never into the PreparedContext; no sink, no side effect; a failing sink (an error, a panic, a leaking effort, a --recall-effort or --otel path that cannot be written) is swallowed with a content-free message: stdout and the exit status are the injection's.",
		Where: []string{rp + "runtime.go:Options", rp + "runtime.go:callSink", rp + "output.go:Render", cp + "prepareAction"}, Tests: []string{"TestGateRounds", "TestEffortSinkFailsOpen", "cmd/TestPrepareDiagnosticsFailOpen", "cmd/TestPrepareSinksFailOpen", "cmd/TestPrepareCLI"}, Status: "met"},
	{ID: "001-21", Text: "Expansion rounds reuse the round-0 query vector; any embedding they pay is counted in added_embeddings.",
		Where: []string{rp + "runtime.go:prep.searchOne"}, Tests: []string{"TestQueryVectorReusedAcrossRounds"}, Status: "met"},
	{ID: "001-22", Text: "Rerank is Memory-only.",
		Where: []string{rp + "runtime.go:prep.searchOne"}, Tests: []string{"TestRerankIsMemoryOnly"}, Status: "met"},
	{ID: "001-23", Text: "An expansion that would search Memory is skipped when a model-backed reranker is enabled (whether or not it has run yet) unless the policy allows the extra call; the decision is recorded and allowed calls are counted.",
		Where: []string{rp + "runtime.go:prep.paidRerank"}, Tests: []string{"TestEnabledButUnusedRerankerBlocksExpansion", "TestGateSkipsExpansionThatWouldPayRerankCalls"}, Status: "met"},
	{ID: "001-24", Text: "Experience carries no score: only its counts and coverage count; duplicates count once.",
		Where: []string{rp + "gate.go:GateFamily"}, Tests: []string{"TestAssess"}, Status: "met"},
	{ID: "001-25", Text: "A scope without a vector deployment searches fts and no round changes the mode.",
		Where: []string{rp + "runtime.go:Options"}, Tests: []string{"TestSearchEvidence/a_scope_without_a_vector_deployment_uses_fts_normally"}, Status: "met"},
	{ID: "001-26", Text: "Aggregate, content-free counters on the prepare span (rounds, assessment, truncated and dropped items, policy id and digest, three gate signal counts).",
		Where: []string{rp + "check.go:Trace"}, Tests: []string{"TestGoldenDemo", "TestPolicyIdentity", "cmd/TestPrepareCLI"}, Status: "met"},
	{ID: "001-27", Text: "Truncations and whole-item drops are counted, the two drop paths kept apart in every fitting path.",
		Where: []string{rp + "build.go:fit"}, Tests: []string{"TestBudgetDrops", "TestCodeCutHonestly"}, Status: "met"},
	{ID: "001-28", Text: "End-to-end task evaluation (control versus gated prepare on SQLite and OceanBase) before enabling by default.",
		Where: []string{rp + "gate.go:RecallEffort"}, Status: "not here", Note: "no task harness, model or OceanBase here; the gate stays off by default and RecallEffort carries the counters the evaluation needs"},

	// Issue #38: the request bounds hold on every input path.
	{ID: "i38-01", Text: "max_bytes is 512-32768 on every input path: --max-bytes 0 is refused like a request file's max_bytes: 0, never silently the 8000 default.",
		Where: []string{cp + "flagRequest", cp + "readRequest", rp + "runtime.go:Request.Validate"}, Tests: []string{"cmd/TestPrepareMaxBytesZero", "cmd/TestPrepareCLI/max_bytes_too_small"}, Status: "met"},

	// Issue #40: keyed mode leaves no input-derived string in clear or as a plain digest.
	{ID: "i40-01", Text: "In keyed mode a receipt's artifact ids, entry ids, entry version ids and code evidence paths are digests under the key, like the query and content digests; the exact code read matches a keyed path.",
		Where: []string{rp + "receipt.go:keyIdentities", rp + "store.go:Store.ReadCode"}, Tests: []string{"TestKeyedDigests"}, Status: "met"},

	// Issue #23 beyond the seeds.
	{ID: "i23-01", Text: "The headline example of docs/usage.md (\"Why did we choose SQLite?\") returns the cited decision without extra flags: query stop words are not lexical evidence.",
		Where: []string{rp + "text.go:queryTerms", "docs/usage.md"}, Tests: []string{"cmd/TestPrepareHeadlineExample"}, Status: "met"},

	// Issue #51: a store prepare never writes, keyed mode that keeps the seeds' promises, recall at request-time speed.
	{ID: "i51-01", Text: "A load running meanwhile never fails a prepare: an open write transaction is read around, a commit's exclusive lock is waited out (busy timeout), and the prepare reads the last committed state.",
		Where: []string{rp + "store.go:OpenReadOnly", rp + "store.go:Open"}, Tests: []string{"cmd/TestPrepareDuringLoad"}, Status: "extension",
		Note: "the store keeps SQLite's rollback journal (no -wal or -shm files appear beside it); the loader never spills its cache into the file before its commit, so a reader is only held by the commit itself, for at most the 5 s busy timeout"},
	{ID: "i51-02", Text: "Every id of a keyed receipt is followed by prepare read with the same key (artifact, entry and entry version ids as the receipt records them, code evidence by its keyed path and digests); without the key the read is refused with a message naming --hash-key-file, and another key reads nothing.",
		Where: []string{rp + "store.go:Store.ResolveKeyed", rp + "store.go:IsKeyedDigest", cp + "prepareReadCommand"}, Tests: []string{"cmd/TestPrepareKeyedRead"}, Status: "extension",
		Note: "a keyed artifact id is resolved by hashing the stored ids of its scope and family under the key: an exact read's cost, not the request path's"},
	{ID: "i51-05", Text: "Recall at request time: a live FTS index of the active heads with every word under its scope and family's prefix (a match reads that pair's postings only), vectors kept beside the live rows and scored for the bodies that share a query term, one store read per search for all gate rounds, the profile snapshot read to its ceiling, and the leak check over the bodies read plus the query, not every body of the scopes.",
		Where: []string{rp + "store.go:indexText", rp + "store.go:Store.searchFTS", rp + "store.go:Store.searchVector", rp + "store.go:Store.profiles", rp + "runtime.go:prep.searchChannels", rp + "runtime.go:prep.saw", "internal/prepare/cmd/benchprep/main.go"},
		Tests: []string{"TestLiveIndexFollowsHeads", "TestOldStoreIsBroughtUpToDate", "TestLeakCheckOverWhatWasRead"}, Status: "partly",
		Note: "reading: the store's vectors are HashEmbed (a signed hashed bag of words), so a body sharing no query term reaches a non-zero cosine only by a hash collision of two different words; still proportional to the store: the FTS channel reads every posting of each query term (a few bytes of a blob a row, i51-06) and the vector channel the vector of every row holding a query term (a row lookup each), and a term's document frequency grows with the store; make bench-prepare measures it (figures in docs/prepare.md: plain grows 1.2-1.4x from 100k to 1M, --vector about 4x)"},
	{ID: "i51-06", Text: "The FTS channel ranks from postings the loader keeps (per scope-and-family word: the live rows holding it, with the word's count and the row's length, in blobs), computing FTS5's bm25 from them and the index totals: exactly FTS5's ORDER BY rank, rowid, ties included, without a per-row read; a search they cannot answer exactly (a non-ASCII query term, a family holding a row unicode61 may tokenize otherwise, a store changed since by a loader that does not keep them, a version 2 store) is ranked by FTS5 itself.",
		Where: []string{rp + "postings.go:Store.topPostings", rp + "postings.go:postWriter", rp + "postings.go:buildPostings", rp + "store.go:Store.searchFTS", rp + "store.go:checkSchema"},
		Tests: []string{"TestPostingsAreFTS5Order", "TestPostingsNeverStale", "TestVersion2StoreIsRead"}, Status: "extension",
		Note: "issue #51's growth target: the bytes read still follow each query term's document frequency (a few blobs per term), the per-row docsize lookups of FTS5's bm25 are gone; figures in docs/prepare.md"},
}

// unlisted are the tests of internal/prepare (and the TestPrepare tests of
// cmd/convert) that prove no row, each with the reason; every other test
// must be named by a row, so the table and the tests stay in step both ways.
var unlisted = map[string]string{
	"TestMain":                       "the fuzz corpus setup",
	"TestRequirements":               "this table's own check",
	"TestLoadErrors":                 "prepare load's input errors (no seed requirement)",
	"TestLoadDuplicateCode":          "prepare load's duplicate-code error (no seed requirement)",
	"TestPrepareHonoursCancellation": "Ctrl-C handling of the runtime (no seed requirement)",
	"cmd/TestPrepareInterrupted":     "Ctrl-C handling of the command (no seed requirement)",
	"cmd/TestPrepareStoreTimeout":    "the store queries' deadline, --timeout (issue #49, stores with bounds; no seed requirement)",
}

func TestRequirements(t *testing.T) {
	funcs := map[string]map[string]bool{"": testFuncs(t, "."), "cmd": testFuncs(t, "../../cmd/convert")}
	sources := map[string][]byte{"": testSources(t, "."), "cmd": testSources(t, "../../cmd/convert")}
	seen := map[string]bool{}
	named := map[string]bool{}
	for _, r := range requirements {
		if seen[r.ID] || r.Text == "" || len(r.Where) == 0 {
			t.Errorf("%s: duplicate or incomplete row", r.ID)
		}
		seen[r.ID] = true
		switch r.Status {
		case "met", "revised", "extension":
			if len(r.Tests) == 0 {
				t.Errorf("%s: a met requirement needs a test", r.ID)
			}
		case "partly":
			if r.Note == "" {
				t.Errorf("%s: a partly met requirement must say what is missing", r.ID)
			}
		case "documented", "not here":
			if len(r.Tests) > 0 {
				t.Errorf("%s: a %s row names tests; if they prove it, it is met", r.ID, r.Status)
			}
		default:
			t.Errorf("%s: unknown status %q", r.ID, r.Status)
		}
		for _, name := range r.Tests {
			pkg, fn, _ := strings.Cut(name, "/")
			if pkg != "cmd" {
				pkg, fn = "", name
			}
			fn, sub, _ := strings.Cut(fn, "/")
			key := fn
			if pkg == "cmd" {
				key = "cmd/" + fn
			}
			named[key] = true
			if ok, exists := funcs[pkg][fn]; !exists {
				t.Errorf("%s: no test %s", r.ID, name)
			} else if !ok {
				// A test behind a build constraint does not run in go test
				// (nor make test): it cannot prove a met row.
				t.Errorf("%s: test %s is in a file with a build constraint", r.ID, name)
			}
			if sub != "" && !bytes.Contains(sources[pkg], []byte(`"`+strings.ReplaceAll(sub, "_", " ")+`"`)) {
				t.Errorf("%s: no subtest %s", r.ID, name)
			}
		}
		for _, w := range r.Where {
			if err := declared(w); err != nil {
				t.Errorf("%s: %v", r.ID, err)
			}
		}
	}
	for pkg, fs := range funcs {
		for fn := range fs {
			key := fn
			if pkg == "cmd" {
				if !strings.HasPrefix(fn, "TestPrepare") {
					continue
				}
				key = "cmd/" + fn
			}
			if _, ok := unlisted[key]; !named[key] && !ok {
				t.Errorf("test %s is named by no requirement (name it in a row, or in unlisted with the reason)", key)
			}
		}
	}
	for key, why := range unlisted {
		pkg, fn, _ := strings.Cut(key, "/")
		if fn == "" {
			pkg, fn = "", key
		}
		if _, exists := funcs[pkg][fn]; !exists || why == "" || named[key] {
			t.Errorf("unlisted %s: no such test, no reason, or also named by a row", key)
		}
	}
	got := renderRequirements()
	if *update {
		os.WriteFile("REQUIREMENTS.md", got, 0o644)
		return
	}
	want, err := os.ReadFile("REQUIREMENTS.md")
	if err != nil || !bytes.Equal(got, want) {
		t.Error("REQUIREMENTS.md is not the table (go test ./internal/prepare -run TestRequirements -update)")
	}
}

// testFuncs lists the Test and Fuzz functions of a package directory: true
// for one that plain go test runs, false for one in a file with a build
// constraint.
func testFuncs(t *testing.T, dir string) map[string]bool {
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		runs := true
		for _, cg := range af.Comments {
			for _, c := range cg.List {
				if c.Pos() < af.Package && strings.HasPrefix(c.Text, "//go:build") {
					runs = false
				}
			}
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && (strings.HasPrefix(fd.Name.Name, "Test") || strings.HasPrefix(fd.Name.Name, "Fuzz")) {
				out[fd.Name.Name] = runs
			}
		}
	}
	return out
}

// testSources concatenates a package directory's test files (subtest names
// are looked up there as string literals).
func testSources(t *testing.T, dir string) []byte {
	var out []byte
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// declared checks "path:Symbol" (or a plain path) against the repository.
func declared(where string) error {
	path, sym, _ := strings.Cut(where, ":")
	full := filepath.Join("../..", path)
	if _, err := os.Stat(full); err != nil {
		return fmt.Errorf("no file %s", path)
	}
	if sym == "" {
		return nil
	}
	af, err := parser.ParseFile(token.NewFileSet(), full, nil, 0)
	if err != nil {
		return err
	}
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				typ := d.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			if name == sym {
				return nil
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == sym {
						return nil
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == sym {
							return nil
						}
					}
				}
			}
		}
	}
	return fmt.Errorf("%s declares no %s", path, sym)
}

func renderRequirements() []byte {
	var b bytes.Buffer
	b.WriteString(`# Requirements of seeds 000 and 001

Generated from the table in ` + "`requirements_test.go`" + ` (` + "`go test ./internal/prepare -run TestRequirements -update`" + `);
the test fails when this file is stale, when a named code location does not exist, when a
**met** row names no test, a test that does not exist or one behind a build constraint (which
plain ` + "`go test`" + ` would not run), and when a test of ` + "`internal/prepare`" + ` (or a ` + "`TestPrepare`" + ` test of
` + "`cmd/convert`" + `) is named by no row and not listed, with its reason, as proving none. The named
tests run in the same ` + "`go test`" + ` of their package as this check, so a met row's tests pass exactly
when that package's tests pass. Seed 000 is the PreparedContext receipt, seed 001 the recall
sufficiency gate. Tests are in ` + "`internal/prepare`" + ` unless prefixed ` + "`cmd/`" + ` (` + "`cmd/convert`" + `);
` + "`TestX/sub`" + ` is a subtest. Where a seed is ambiguous the reading chosen is in the status note
(and in ` + "`docs/prepare.md`" + `).

Status: **met**; **partly** (the note says what is missing); **revised** (the seed asks for a
measured revision and got one); **extension** (beyond the seed, from another issue);
**documented** (a rule for callers, stated in ` + "`docs/usage.md`" + `); **not here** (needs a system this
project does not have).

| id | requirement | where | tests | status |
|---|---|---|---|---|
`)
	cell := func(xs []string) string {
		var out []string
		for _, x := range xs {
			out = append(out, "`"+strings.TrimPrefix(x, rp)+"`")
		}
		return strings.Join(out, "<br>")
	}
	for _, r := range requirements {
		st := r.Status
		if r.Note != "" {
			st += ": " + r.Note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, r.Text, cell(r.Where), cell(r.Tests), st)
	}
	return b.Bytes()
}
