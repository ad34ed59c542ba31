package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// secret_scanning proves a pre-commit secret scan run by an agent through an
// MCP server: the scan was requested and completed, each finding was shown
// redacted, the bypass policy was evaluated, and a clean rescan happened.
// Secret values, paths, prompts, tool responses, remediation text, notes,
// tickets, and the request, finding and rescan ids are only ever hashed;
// secret types, severities, statuses and policy decisions are categorical.
// The leak check fails the run if a secret-shaped value reaches any output,
// even through a categorical field. A plain digest of a short or guessable
// secret can be brute-forced: share receipts made with --hash-key-file.
func init() {
	// The log's "repo" is the local checkout path and "repository" its name:
	// both are written as digests under their own keys, in place of the
	// shared session.start's reading of "repo" as the repository name.
	var start Rec
	for _, m := range sessionStart.Moves {
		if m.Path != "repo" {
			start.Moves = append(start.Moves, m)
		}
	}
	start.Moves = append(start.Moves,
		spanMove(Label("provider", "mcp.provider")),
		spanMove(Label("client", "mcp.client")),
		spanMove(Hash("repository", "repository.hash")),
		spanMove(Hash("repo", "repository.path_hash")),
	)
	registerScenario(Scenario{
		Name:     "secret_scanning",
		Doc:      "MCP secret scanning before commit: scan, redacted findings, bypass policy, clean rescan",
		SpanName: "agent.session.security.secret_scanning",
		Records: map[string]Rec{
			"session.start": start,
			"security.secret_scanning.requested": {
				Event: "security.secret_scanning.requested",
				Title: "security.secret_scanning.requested: an agent asked the MCP server to scan its current changes for secrets",
				Moves: secretScanMoves(
					Label("trigger", "security.scan.trigger"),
					Label("toolset", "security.scan.toolset"),
					Label("tool", "security.scan.tool"),
					Label("scan_scope", "security.scan.scope"),
					Count("diff_paths", "security.scan.diff_path_count"),
					Hash("diff_paths", "security.scan.diff_paths_hash"),
					Hash("prompt", "security.scan.prompt_hash"),
					Label("push_protection_customization", "security.secret_scanning.push_protection_customization"),
					Bool("persisted_as_github_alert", "security.secret_scanning.persisted_as_github_alert"),
					Const("privacy.raw_prompt_recorded", receipt.B(false)),
					Const("privacy.raw_diff_paths_recorded", receipt.B(false)),
					Const("privacy.raw_secret_values_recorded", receipt.B(false)),
				),
				Hook: secretScanRequested,
			},
			"security.secret_scanning.completed": {
				Event: "security.secret_scanning.completed",
				Title: "security.secret_scanning.completed: the secret scan finished: status, sizes and finding count",
				Moves: secretScanMoves(
					Label("status", "security.scan.status"),
					Int("files_scanned", "security.scan.files_scanned"),
					Bucket("line_count", "security.scan.line_count_bucket", receipt.CountLadder),
					Req(Int("finding_count", "security.secret_scanning.finding_count")),
					Bucket("finding_count", "security.secret_scanning.finding_count_bucket", receipt.CountLadder),
					Int("detector_count", "security.secret_scanning.detector_count"),
					Hash("engine_snapshot", "security.secret_scanning.engine_snapshot_hash"),
					Bucket("latency_ms", "security.scan.latency_bucket", receipt.LatencyLadder),
					Hash("tool_response_excerpt", "security.scan.tool_response_hash"),
					Const("privacy.raw_tool_response_recorded", receipt.B(false)),
					Const("privacy.raw_secret_values_recorded", receipt.B(false)),
					After("request_id", "security.secret_scanning.requested", "request_id"),
				),
				Hook: secretScanCompleted,
			},
			"security.secret_scanning.finding.presented": {
				Event: "security.secret_scanning.finding.presented",
				Title: "security.secret_scanning.finding.presented: one secret finding was shown to the agent, redacted",
				Moves: secretScanMoves(
					Req(Hash("finding_id", "security.finding.hash")),
					Req(Label("secret_type", "security.secret_scanning.secret_type")),
					Label("severity", "security.finding.severity"),
					Hash("location_path", "security.finding.location_path_hash"),
					Bucket("line", "security.finding.line_bucket", receipt.CountLadder),
					Hash("secret_value", "security.finding.secret_value_hash"),
					Hash("remediation", "security.finding.remediation_hash"),
					Label("push_protection_action", "security.secret_scanning.push_protection_action"),
					Bool("bypass_allowed", "security.secret_scanning.bypass_allowed"),
					Const("privacy.raw_location_path_recorded", receipt.B(false)),
					Const("privacy.raw_secret_value_recorded", receipt.B(false)),
					Const("privacy.raw_remediation_text_recorded", receipt.B(false)),
					After("request_id", "security.secret_scanning.requested", "request_id"),
					After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Hook: secretScanFinding,
			},
			"security.secret_scanning.bypass.evaluated": {
				Event: "security.secret_scanning.bypass.evaluated",
				Title: "security.secret_scanning.bypass.evaluated: the push-protection bypass policy was evaluated for the scan's findings",
				Moves: secretScanMoves(
					Hash("policy", "security.policy.hash"),
					Bool("bypass_requested", "security.secret_scanning.bypass_requested"),
					Req(Bool("bypass_allowed", "security.secret_scanning.bypass_allowed")),
					Label("bypass_reason", "security.secret_scanning.bypass_reason"),
					Label("decision", "security.secret_scanning.decision"),
					Hash("operator_note", "security.operator_note_hash"),
					Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					After("request_id", "security.secret_scanning.requested", "request_id"),
					After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Hook: secretScanBypass,
			},
			"security.secret_scanning.remediation.verified": {
				Event: "security.secret_scanning.remediation.verified",
				Title: "security.secret_scanning.remediation.verified: a rescan after remediation: status and findings left",
				Moves: secretScanMoves(
					Hash("rescan_id", "security.scan.rescan.hash"),
					Req(Label("status", "security.scan.status")),
					Count("changed_paths", "security.scan.changed_path_count"),
					Hash("changed_paths", "security.scan.changed_paths_hash"),
					Req(Int("finding_count_after", "security.secret_scanning.finding_count_after")),
					Hash("rotation_ticket", "security.remediation.rotation_ticket_hash"),
					Bucket("latency_ms", "security.scan.latency_bucket", receipt.LatencyLadder),
					Const("privacy.raw_changed_paths_recorded", receipt.B(false)),
					Const("privacy.raw_rotation_ticket_recorded", receipt.B(false)),
					Req(Const("audit.gap", receipt.S("receipt_proves_scan_findings_policy_and_clean_rescan_not_secret_revocation_completion"))),
					After("request_id", "security.secret_scanning.requested", "request_id"),
					After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Writes: []Attr{
					ReqAttr(Sets("security.secret_scanning.findings_resolved", DefBool)),
				},
				Hook: secretScanRemediation,
			},
		},
		NewState: newSecretState,
		End:      secretScanEnd,
	})
}

// secretScanContext lists the session attributes every event repeats, so
// each event can be joined and read on its own.
var secretScanContext = []string{"mcp.provider", "mcp.client", "repository.hash", "repository.path_hash"}

// secretScanMoves puts the shared identity first: session, agent, the
// session context from session.start, and the request the record belongs to.
func secretScanMoves(moves ...Move) []Move {
	head := []Move{SessionIDs(), AgentName(), FromSpan(secretScanContext...),
		Req(Hash("request_id", "security.scan.request.hash")),
	}
	return append(head, moves...)
}

// secretState is what the scan rules keep, by the digest of the request id.
type secretState struct {
	requested, completed, noBypass      map[string]bool
	declared, presented                 map[string]int64 // findings per request
	findingsDeclared, findingsPresented int64
	verified                            int64
}

func newSecretState() any {
	return &secretState{requested: map[string]bool{}, completed: map[string]bool{}, noBypass: map[string]bool{},
		declared: map[string]int64{}, presented: map[string]int64{}}
}

func secretScanRequested(s *Session, v *Values, _ *receipt.Attrs) error {
	StateOf[secretState](s).requested[v.Digest("request_id")] = true
	return nil
}

func secretScanCompleted(s *Session, v *Values, _ *receipt.Attrs) error {
	st, req := StateOf[secretState](s), v.Digest("request_id")
	if st.completed[req] {
		return fmt.Errorf("request_id already has a security.secret_scanning.completed record")
	}
	st.completed[req] = true
	st.declared[req] += v.Int("finding_count")
	st.findingsDeclared += v.Int("finding_count")
	return nil
}

// secretScanFinding counts the finding against the scan's declared total
// and remembers whether any finding forbids a bypass.
func secretScanFinding(s *Session, v *Values, _ *receipt.Attrs) error {
	st, req := StateOf[secretState](s), v.Digest("request_id")
	st.presented[req]++
	st.findingsPresented++
	if st.presented[req] > st.declared[req] {
		return fmt.Errorf("more findings presented than the scan's finding_count")
	}
	if b := v.Get("bypass_allowed"); b.IsBool() && !b.Bool() {
		st.noBypass[req] = true
	}
	return nil
}

// secretScanBypass enforces that the policy evaluation does not allow a
// bypass that a presented finding forbids.
func secretScanBypass(s *Session, v *Values, _ *receipt.Attrs) error {
	if v.Bool("bypass_allowed") && StateOf[secretState](s).noBypass[v.Digest("request_id")] {
		return fmt.Errorf("bypass allowed although a presented finding forbids bypass")
	}
	return nil
}

// secretScanRemediation enforces that the rescan follows a completed scan
// whose findings were all presented, and that a clean status means no
// findings are left.
func secretScanRemediation(s *Session, v *Values, a *receipt.Attrs) error {
	st, req := StateOf[secretState](s), v.Digest("request_id")
	if st.presented[req] != st.declared[req] {
		return fmt.Errorf("remediation verified before every finding of the scan was presented")
	}
	after := v.Get("finding_count_after").Int()
	if v.Get("status").String().Is("clean") && after != 0 {
		return fmt.Errorf("rescan status is clean but finding_count_after is not zero")
	}
	a.Set("security.secret_scanning.findings_resolved", receipt.B(after == 0))
	st.verified++
	return nil
}

// secretScanEnd writes the run's totals on the root span. A scan whose
// findings were not all presented fails the run: the receipt could not show
// what the agent was told.
func secretScanEnd(s *Session) error {
	st := StateOf[secretState](s)
	if st.findingsPresented != st.findingsDeclared {
		return fmt.Errorf("presented findings do not match the finding_count of the completed scans")
	}
	s.Span.Set("security.scan.request.count", receipt.I(int64(len(st.requested))))
	s.Span.Set("security.secret_scanning.finding.presented_count", receipt.I(st.findingsPresented))
	s.Span.Set("security.scan.remediation_verified_count", receipt.I(st.verified))
	return nil
}
