package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

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
func secretScanningTable() scenario.Scenario {
	// The log's "repo" is the local checkout path and "repository" its name:
	// both are written as digests under their own keys, in place of the
	// shared session.start's reading of "repo" as the repository name.
	var start scenario.Rec
	for _, m := range scenario.SessionStart.Moves {
		if m.Path != "repo" {
			start.Moves = append(start.Moves, m)
		}
	}
	start.Moves = append(start.Moves,
		scenario.SpanMove(scenario.Label("provider", "mcp.provider")),
		scenario.SpanMove(scenario.Label("client", "mcp.client")),
		scenario.SpanMove(scenario.Hash("repository", "repository.hash")),
		scenario.SpanMove(scenario.Hash("repo", "repository.path_hash")),
	)
	return scenario.Scenario{
		Name:     "secret_scanning",
		Doc:      "MCP secret scanning before commit: scan, redacted findings, bypass policy, clean rescan",
		SpanName: "agent.session.security.secret_scanning",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"allow_with_reason", "block", "block_until_removed", "critical", "current_changes", "findings_presented",
			"fixture_claim_rejected", "github-copilot-cli", "github-mcp-server", "github_personal_access_token",
			"json_web_token", "not_applicable", "openai_api_key", "org-default-block-with-documented-bypass",
			"pre_commit_agent_prompt", "rsa_private_key", "run_secret_scanning", "secret_protection",
			"stripe_webhook_secret",
		},
		Records: map[string]scenario.Rec{
			"session.start": start,
			"security.secret_scanning.requested": {
				Event: "security.secret_scanning.requested",
				Title: "security.secret_scanning.requested: an agent asked the MCP server to scan its current changes for secrets",
				Moves: secretScanMoves(
					scenario.Label("trigger", "security.scan.trigger"),
					scenario.Label("toolset", "security.scan.toolset"),
					scenario.Label("tool", "security.scan.tool"),
					scenario.Label("scan_scope", "security.scan.scope"),
					scenario.Count("diff_paths", "security.scan.diff_path_count"),
					scenario.Hash("diff_paths", "security.scan.diff_paths_hash"),
					scenario.Hash("prompt", "security.scan.prompt_hash"),
					scenario.Label("push_protection_customization", "security.secret_scanning.push_protection_customization"),
					scenario.Bool("persisted_as_github_alert", "security.secret_scanning.persisted_as_github_alert"),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_diff_paths_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_secret_values_recorded", receipt.B(false)),
				),
				Hook: secretScanRequested,
			},
			"security.secret_scanning.completed": {
				Event: "security.secret_scanning.completed",
				Title: "security.secret_scanning.completed: the secret scan finished: status, sizes and finding count",
				Moves: secretScanMoves(
					scenario.Label("status", "security.scan.status"),
					scenario.Int("files_scanned", "security.scan.files_scanned"),
					scenario.Bucket("line_count", "security.scan.line_count_bucket", receipt.CountLadder),
					scenario.Req(scenario.Int("finding_count", "security.secret_scanning.finding_count")),
					scenario.Bucket("finding_count", "security.secret_scanning.finding_count_bucket", receipt.CountLadder),
					scenario.Int("detector_count", "security.secret_scanning.detector_count"),
					scenario.Hash("engine_snapshot", "security.secret_scanning.engine_snapshot_hash"),
					scenario.Bucket("latency_ms", "security.scan.latency_bucket", receipt.LatencyLadder),
					scenario.Hash("tool_response_excerpt", "security.scan.tool_response_hash"),
					scenario.Const("privacy.raw_tool_response_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_secret_values_recorded", receipt.B(false)),
					scenario.After("request_id", "security.secret_scanning.requested", "request_id"),
				),
				Hook: secretScanCompleted,
			},
			"security.secret_scanning.finding.presented": {
				Event: "security.secret_scanning.finding.presented",
				Title: "security.secret_scanning.finding.presented: one secret finding was shown to the agent, redacted",
				Moves: secretScanMoves(
					scenario.Req(scenario.Hash("finding_id", "security.finding.hash")),
					scenario.Req(scenario.Label("secret_type", "security.secret_scanning.secret_type")),
					scenario.Label("severity", "security.finding.severity"),
					scenario.Hash("location_path", "security.finding.location_path_hash"),
					scenario.Bucket("line", "security.finding.line_bucket", receipt.CountLadder),
					scenario.Hash("secret_value", "security.finding.secret_value_hash"),
					scenario.Hash("remediation", "security.finding.remediation_hash"),
					scenario.Label("push_protection_action", "security.secret_scanning.push_protection_action"),
					scenario.Bool("bypass_allowed", "security.secret_scanning.bypass_allowed"),
					scenario.Const("privacy.raw_location_path_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_secret_value_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_remediation_text_recorded", receipt.B(false)),
					scenario.After("request_id", "security.secret_scanning.requested", "request_id"),
					scenario.After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Hook: secretScanFinding,
			},
			"security.secret_scanning.bypass.evaluated": {
				Event: "security.secret_scanning.bypass.evaluated",
				Title: "security.secret_scanning.bypass.evaluated: the push-protection bypass policy was evaluated for the scan's findings",
				Moves: secretScanMoves(
					scenario.Hash("policy", "security.policy.hash"),
					scenario.Bool("bypass_requested", "security.secret_scanning.bypass_requested"),
					scenario.Req(scenario.Bool("bypass_allowed", "security.secret_scanning.bypass_allowed")),
					scenario.Label("bypass_reason", "security.secret_scanning.bypass_reason"),
					scenario.Label("decision", "security.secret_scanning.decision"),
					scenario.Hash("operator_note", "security.operator_note_hash"),
					scenario.Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					scenario.After("request_id", "security.secret_scanning.requested", "request_id"),
					scenario.After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Hook: secretScanBypass,
			},
			"security.secret_scanning.remediation.verified": {
				Event: "security.secret_scanning.remediation.verified",
				Title: "security.secret_scanning.remediation.verified: a rescan after remediation: status and findings left",
				Moves: secretScanMoves(
					scenario.Hash("rescan_id", "security.scan.rescan.hash"),
					scenario.Req(scenario.Label("status", "security.scan.status")),
					scenario.Count("changed_paths", "security.scan.changed_path_count"),
					scenario.Hash("changed_paths", "security.scan.changed_paths_hash"),
					scenario.Req(scenario.Int("finding_count_after", "security.secret_scanning.finding_count_after")),
					scenario.Hash("rotation_ticket", "security.remediation.rotation_ticket_hash"),
					scenario.Bucket("latency_ms", "security.scan.latency_bucket", receipt.LatencyLadder),
					scenario.Const("privacy.raw_changed_paths_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_rotation_ticket_recorded", receipt.B(false)),
					scenario.Req(scenario.Const("audit.gap", receipt.S("receipt_proves_scan_findings_policy_and_clean_rescan_not_secret_revocation_completion"))),
					scenario.After("request_id", "security.secret_scanning.requested", "request_id"),
					scenario.After("request_id", "security.secret_scanning.completed", "request_id"),
				),
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("security.secret_scanning.findings_resolved", events.DefBool)),
				},
				Hook: secretScanRemediation,
			},
		},
		NewState: newSecretState,
		End:      secretScanEnd,
	}
}

func init() { scenario.Define("secret_scanning", secretScanningTable) }

// secretScanContext lists the session attributes every event repeats, so
// each event can be joined and read on its own.
var secretScanContext = []string{"mcp.provider", "mcp.client", "repository.hash", "repository.path_hash"}

// secretScanMoves puts the shared identity first: session, agent, the
// session context from session.start, and the request the record belongs to.
func secretScanMoves(moves ...scenario.Move) []scenario.Move {
	head := []scenario.Move{scenario.SessionIDs(), scenario.AgentName(), scenario.FromSpan(secretScanContext...),
		scenario.Req(scenario.Hash("request_id", "security.scan.request.hash")),
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

func secretScanRequested(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	scenario.StateOf[secretState](s).requested[v.Digest("request_id")] = true
	return nil
}

func secretScanCompleted(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st, req := scenario.StateOf[secretState](s), v.Digest("request_id")
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
func secretScanFinding(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st, req := scenario.StateOf[secretState](s), v.Digest("request_id")
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
func secretScanBypass(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	if v.Bool("bypass_allowed") && scenario.StateOf[secretState](s).noBypass[v.Digest("request_id")] {
		return fmt.Errorf("bypass allowed although a presented finding forbids bypass")
	}
	return nil
}

// secretScanRemediation enforces that the rescan follows a completed scan
// whose findings were all presented, and that a clean status means no
// findings are left.
func secretScanRemediation(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, req := scenario.StateOf[secretState](s), v.Digest("request_id")
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
func secretScanEnd(s *scenario.Session) error {
	st := scenario.StateOf[secretState](s)
	if st.findingsPresented != st.findingsDeclared {
		return fmt.Errorf("presented findings do not match the finding_count of the completed scans")
	}
	s.Span.Set("security.scan.request.count", receipt.Computed(int64(len(st.requested))))
	s.Span.Set("security.secret_scanning.finding.presented_count", receipt.Computed(st.findingsPresented))
	s.Span.Set("security.scan.remediation_verified_count", receipt.Computed(st.verified))
	return nil
}
