package converters

import (
	"net/url"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// publicInstructionPaths are conventional instruction-file paths that say
// nothing private about a repository; only these are written in clear.
// Every other path is written as its digest alone.
var publicInstructionPaths = map[string]bool{
	"AGENTS.md": true, "AGENT.md": true, "CLAUDE.md": true, "CLAUDE.local.md": true,
	".claude/CLAUDE.md": true, "GEMINI.md": true, "CONVENTIONS.md": true,
	".cursorrules": true, ".windsurfrules": true, ".github/copilot-instructions.md": true,
}

// contextInputLoaded maps a context.input record (an instruction file,
// retrieved context or memory that entered the prompt) to the full identity
// split of context.input.loaded: source bytes, canonical form, delivered
// bytes, full render, truncation and the duplicate-suppression identity.
// transform names how the delivered text was obtained.
func contextInputLoaded(transform string) Rec {
	return Rec{
		Event: "context.input.loaded",
		Moves: []Move{
			Req(Label("kind", "context.input.kind")),
			{Path: "source_path", apply: sourcePath},
			{Path: "source_uri", apply: sourceURI},
			Label("loaded_by", "context.input.loaded_by"),
			Label("activation", "context.input.activation"),
			Label("scope", "context.input.scope"),
			Label("applies_to", "context.input.applies_to"),
			Label("why_loaded", "context.input.why_loaded"),
			Label("expected_benefit", "context.input.expected_benefit"),
			SessionIDs(),
		},
		Then: func(s *Session, r Record, a *receipt.Attrs) error {
			return contextInputIdentity(s, r.JSON, a, transform)
		},
	}
}

func sourcePath(s *Session, v gjson.Result, a *receipt.Attrs) error {
	p := strings.TrimPrefix(v.String(), "./")
	if publicInstructionPaths[p] {
		a.Set("context.input.source.path", receipt.S(p))
	}
	a.Set("context.input.source.path_hash", receipt.S(s.Hash.Text(v.String())))
	return nil
}

// sourceURI writes the scheme in clear (mcp, https, file) and the URI as a digest.
func sourceURI(s *Session, v gjson.Result, a *receipt.Attrs) error {
	scheme := "unknown"
	if u, err := url.Parse(v.String()); err == nil && receipt.IsToken(u.Scheme) {
		scheme = strings.ToLower(u.Scheme)
	}
	a.Set("context.input.source.uri", receipt.S(scheme))
	a.Set("context.input.source.uri_hash", receipt.S(s.Hash.Text(v.String())))
	return nil
}

func contextInputIdentity(s *Session, rec gjson.Result, a *receipt.Attrs, transform string) error {
	src, delivered := rec.Get("source_text"), rec.Get("delivered_text")
	if src.Exists() {
		a.Set("context.input.source.bytes_hash", receipt.S(s.Hash.Text(src.Str)))
		a.Set("context.input.source.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(len(src.Str)))))
		a.Set("context.input.source.canonical.form", receipt.S(receipt.CanonicalTextForm))
		a.Set("context.input.source.canonical.hash", receipt.S(s.Hash.CanonicalText(src.Str)))
		a.Set("context.input.source.canonicalization", receipt.S(receipt.CanonicalTextSteps))
	}
	if !delivered.Exists() {
		a.Set("context.input.audit_gap", receipt.S("delivered_text_not_logged"))
	} else {
		d := s.Hash.Text(delivered.Str)
		truncated := src.Exists() && len(delivered.Str) < len(src.Str) &&
			strings.HasPrefix(receipt.CanonicalizeText(src.Str), receipt.CanonicalizeText(delivered.Str))
		a.Set("context.input.delivered.hash", receipt.S(d))
		a.Set("context.input.delivered.full_render.hash", receipt.S(d))
		a.Set("context.input.delivered.full_render.status", receipt.S("available"))
		a.Set("context.input.delivered.template_hash", receipt.S("none"))
		a.Set("context.input.delivered.transform", receipt.S(transform))
		a.Set("context.input.delivered.nondeterministic", receipt.B(false))
		a.Set("context.input.delivered.truncated", receipt.B(truncated))
	}
	// One identity per content within the conversation: the second delivery
	// of the same canonical content is a duplicate, whatever its path.
	var content string
	switch {
	case src.Exists():
		content = s.Hash.CanonicalText(src.Str)
	case delivered.Exists():
		content = s.Hash.CanonicalText(delivered.Str)
	default:
		return nil
	}
	scope := s.ID
	if scope == "" {
		scope = "unknown_session"
	}
	key := scope + ":" + content
	role, risk := "selected", "none_observed"
	if s.Has("context.input.dedupe", key) {
		role, risk = "duplicate", "repeated_delivery"
	}
	s.Mark("context.input.dedupe", key)
	a.Set("context.input.duplicate.dedupe_key", receipt.S(key))
	a.Set("context.input.duplicate.dedupe_scope", receipt.S("conversation"))
	a.Set("context.input.duplicate.suppression_policy", receipt.S("suppress_equal_dedupe_key_within_scope"))
	a.Set("context.input.duplicate.role", receipt.S(role))
	a.Set("context.input.duplicate.risk", receipt.S(risk))
	return nil
}
