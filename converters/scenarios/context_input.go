package scenarios

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// context_input compares harnesses that load the same instruction file: a
// native read, a template expansion, a generated header, a clip for a small
// window and a clip at ingest. Each delivery becomes one context.input.loaded
// event carrying the full identity split (seed 004): source bytes, canonical
// form, delivered bytes, full render (or why it is unknown), template,
// nondeterminism, truncation and the duplicate-suppression identity, so each
// of the seed's five failure modes is decidable from the receipt alone.
func contextInputTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "context_input",
		Doc:      "Harness renders of one instruction file: source, canonical, delivered, full-render, template identities, dedupe",
		SpanName: "agent.session",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"after_compaction", "clipped-at-ingest-full-render-not-materialized", "context-eval-harness",
			"copilot-windows-nfd", "file_changed", "frontmatter-stripped-with-generated-header",
			"generated-generic-fallback", "generated_header_timestamp", "ingest-clipping-harness", "native-agents-md",
			"native-file-discovery", "post-template-expansion", "post-template-expansion-clipped-for-window",
			"same-logical-load-different-generated-header", "small-window-harness",
		},
		Records: map[string]scenario.Rec{
			"context.input.rendered": contextInputLoaded("source-as-delivered"),
		},
		NewState: func() any { return newInputState() },
		End: func(s *scenario.Session) error {
			st := inputsOf(s)
			s.Span.Set("context.input.delivery.count", receipt.Computed(st.delivered))
			s.Span.Set("context.input.unique_count", receipt.Computed(int64(len(st.dedupe))))
			s.Span.Set("context.input.truncated.count", receipt.Computed(st.truncated))
			s.Span.Set("context.input.full_render.unknown_count", receipt.Computed(st.renderUnknown))
			return nil
		},
	}
}

func init() { scenario.Define("context_input", contextInputTable) }

// inputState is what the identity split keeps across the records of a
// file: the dedupe keys and template keys loaded so far, and the counts the
// root span reports. The scenarios that load inputs with contextInputRec
// besides context_input (memory, session) embed it in their state.
type inputState struct {
	dedupe, templates                   map[string]bool
	delivered, truncated, renderUnknown int64
}

func newInputState() *inputState {
	return &inputState{dedupe: map[string]bool{}, templates: map[string]bool{}}
}

func (st *inputState) inputs() *inputState { return st }

// inputsOf returns the inputState of a scenario that loads inputs.
func inputsOf(s *scenario.Session) *inputState {
	return s.State.(interface{ inputs() *inputState }).inputs()
}

// Statuses of the full render (the payload before any context-window clip).
const (
	fullRenderAvailable    = "available"                    // materialised: hashed
	fullRenderNotMaterial  = "unavailable_not_materialized" // the harness clipped at ingest: no hash exists
	fullRenderNotLogged    = "unavailable_not_logged"       // clipped, but the log does not carry the full render
	policySuppressEqual    = "suppress_equal_dedupe_key_within_scope"
	policyKeepTemplate     = "keep_distinct_template_hash_is_candidate_only"
	policyKeepRenderUnknow = "keep_distinct_full_render_unknown"
)

// fullRenderStatuses are the statuses of the full render.
var fullRenderStatuses = events.Enum(fullRenderAvailable, fullRenderNotLogged, fullRenderNotMaterial).
	Doc("available: materialised and hashed; unavailable_not_materialized: the harness clipped at ingest, no full render ever existed; unavailable_not_logged: clipped, but the log does not carry the full render")

// contextInputWrites are the keys the identity split writes besides the
// table's (readIdentity, writeIdentity and the builders they call);
// transform is the default of context.input.delivered.transform.
func contextInputWrites(transform string) []events.Attr {
	return append([]events.Attr{
		events.SetsProp("context.input.source.uri", uriProp()),
		events.Sets("context.input.source.uri_hash", events.DefDigest),
		events.Sets("context.input.source.bytes_hash", events.DefDigest).Doc("digest of the source bytes as read"),
		events.Sets("context.input.source.size_bucket", events.LadderDef(receipt.ByteLadder)),
		events.SetsConst("context.input.source.canonical.form", receipt.S(receipt.CanonicalTextForm)),
		events.Sets("context.input.source.canonical.hash", events.DefDigest),
		events.SetsConst("context.input.source.canonicalization", receipt.S(receipt.CanonicalTextSteps)),
		events.Sets("context.input.delivered.hash", events.DefDigest),
		events.Sets("context.input.delivered.size_bucket", events.LadderDef(receipt.ByteLadder)),
		events.SetsConst("context.input.delivered.transform", receipt.S(transform)),
		events.Sets("context.input.delivered.full_render.hash", events.DefDigest).Doc("digest of the full render before any context-window clip; present only when status is available"),
		events.SetsProp("context.input.delivered.full_render.status", fullRenderStatuses),
		events.SetsProp("context.input.delivered.template_hash", events.AnyOf(events.Ref(events.DefDigest), events.Prop{"const": "none"}).Doc("digest of the template or render recipe, or none")),
		events.Sets("context.input.delivered.nondeterministic", events.DefBool),
		events.Sets("context.input.delivered.truncated", events.DefBool),
		events.Sets("context.input.delivered.truncation_limit_chars", events.DefCount),
		events.SetsProp("context.input.duplicate.dedupe_key", events.Prop{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}:(sha256|hmac-sha256):[0-9a-f]{64}$"}.Doc("<conversation>:<canonical digest of the dedupe basis>")),
		events.SetsProp("context.input.duplicate.dedupe_basis", events.Enum("full_render_canonical", "delivered_canonical", "source_canonical").Doc("which text the dedupe key is over, in the canonical form")),
		events.SetsConst("context.input.duplicate.dedupe_scope", receipt.S("conversation")),
		events.SetsProp("context.input.duplicate.suppression_policy", events.Enum(policySuppressEqual, policyKeepTemplate, policyKeepRenderUnknow)),
		events.SetsProp("context.input.duplicate.role", events.Enum("selected", "duplicate", "candidate_duplicate")),
		events.SetsProp("context.input.duplicate.risk", events.Enum("none_observed", "repeated_delivery", "candidate_duplicate", "duplicate_not_proven", "clipped_prefix_match_full_render_unknown", "same_template_payload_differs", "cross_client_duplicate_possible")),
	}, sourcePathWrites...)
}

// contextInputLoaded maps a record saying that an instruction file, memory
// or retrieved text entered the prompt to context.input.loaded with the full
// identity split. transform names how the delivered text was obtained when
// the record does not say.
//
// Optional fields it reads besides the table's (identityFields): source_text,
// delivered_text, full_render_text, template_text, nondeterministic,
// truncated, truncation_limit_chars and conversation_id (all text is raw and
// only hashed).
func contextInputLoaded(transform string) scenario.Rec {
	return contextInputRec(transform, nil, nil)
}

// contextInputRec is contextInputLoaded with extra moves and a source hook:
// source, when set, supplies the source text from state (for example what a
// memory layer returned) instead of the record's source_text; it may add
// attributes of its own.
func contextInputRec(transform string, extra []scenario.Move, source func(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) (view.Text, bool, error)) scenario.Rec {
	moves := []scenario.Move{
		identityFields,
		scenario.Req(scenario.Label("kind", "context.input.kind")),
		{Path: "source_path", Apply: sourcePath},
		{Path: "source_uri", Apply: sourceURI},
		scenario.Label("loaded_by", "context.input.loaded_by"),
		scenario.Label("activation", "context.input.activation"),
		scenario.Label("scope", "context.input.scope"),
		scenario.Label("applies_to", "context.input.applies_to"),
		scenario.Label("why_loaded", "context.input.why_loaded"),
		scenario.Label("expected_benefit", "context.input.expected_benefit"),
		scenario.Label("transform", "context.input.delivered.transform"),
		scenario.Label("nondeterminism_reason", "context.input.delivered.nondeterminism_reason"),
		scenario.Label("suppression_policy", "context.input.duplicate.suppression_policy"),
		scenario.Label("duplicate_role", "context.input.duplicate.role").Schema(events.Enum("selected", "duplicate", "candidate_duplicate", "suppressed")),
		scenario.Label("full_render_status", "context.input.delivered.full_render.status").Schema(fullRenderStatuses),
		scenario.SessionIDs(),
	}
	moves = append(moves, extra...)
	return scenario.Rec{
		Event:  "context.input.loaded",
		Moves:  moves,
		Writes: contextInputWrites(transform),
		Then: func(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
			id, err := readIdentity(s, v, a, transform)
			if err != nil {
				return err
			}
			if source != nil {
				text, ok, err := source(s, v, a)
				if err != nil {
					return err
				}
				id.source, id.hasSource = text, ok
			}
			return writeIdentity(s, a, id)
		},
	}
}

// sourcePathWrites are the keys sourcePath writes.
var sourcePathWrites = []events.Attr{
	events.SetsProp("context.input.source.path", events.PublicPathProp()),
	events.Sets("context.input.source.path_hash", events.DefDigest),
}

func sourcePath(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
	if p, ok := events.PublicPath(v.String()); ok {
		a.Set("context.input.source.path", receipt.S(p))
	}
	a.Set("context.input.source.path_hash", receipt.S(v.String().Digest(s.Hash)))
	return nil
}

// uriSchemes are the source URI schemes written in clear.
var uriSchemes = map[string]string{"mcp": "mcp", "https": "https", "http": "http", "file": "file", "git": "git",
	"ssh": "ssh", "s3": "s3", "gs": "gs", "memory": "memory", "skill": "skill", "plugin": "plugin", "data": "data"}

// uriProp is the schema of what sourceURI writes.
func uriProp() events.Prop {
	var schemes []any
	for _, s := range slices.Sorted(maps.Keys(uriSchemes)) {
		schemes = append(schemes, uriSchemes[s])
	}
	return events.Enum(append(schemes, "other", "unknown")...).Doc("URI scheme only, from a fixed list (other: a scheme not on it)")
}

// sourceURI writes the scheme in clear (mcp, https, file) and the URI as a digest.
func sourceURI(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
	scheme := "unknown"
	if u, err := url.Parse(v.String().Own()); err == nil && u.Scheme != "" {
		// Only well-known schemes are written, from our own list: a scheme
		// is input, and a lower-cased copy of input is still a copy.
		scheme = "other"
		if k, ok := uriSchemes[strings.ToLower(u.Scheme)]; ok {
			scheme = k
		}
	}
	a.Set("context.input.source.uri", receipt.S(scheme))
	a.Set("context.input.source.uri_hash", receipt.S(v.String().Digest(s.Hash)))
	return nil
}

// identity is what a record says about one delivery. Texts are raw: they
// are only ever hashed, within the record's call (borrow:call).
type identity struct {
	source, delivered, fullRender, template         view.Text
	hasSource, hasDelivered, hasFullRender, hasTmpl bool
	renderStatus                                    string // declared full_render_status, "" if none
	transform                                       string // label already written, or the default
	nondeterministic                                bool
	truncated                                       *bool // declared
	limit                                           int64
	hasLimit                                        bool
	scope                                           string // dedupe scope id
	role, policy                                    string // declared, "" if none
}

// identityFields declares the fields readIdentity reads.
var identityFields = scenario.Use("source_text", "delivered_text", "full_render_text", "template_text",
	"nondeterministic", "truncated", "truncation_limit_chars", "conversation_id")

func optText(v *scenario.Values, path string) (view.Text, bool, error) {
	f := v.Get(path)
	if !f.Exists() || f.Type() == view.Null {
		return view.Text{}, false, nil
	}
	if f.Type() != view.String {
		return view.Text{}, false, fmt.Errorf("field %q must be a string", path)
	}
	return f.Str(), true, nil
}

func readIdentity(s *scenario.Session, in *scenario.Values, a *receipt.Attrs, transform string) (identity, error) {
	var id identity
	var err error
	for _, f := range []struct {
		path string
		text *view.Text
		ok   *bool
	}{
		{"source_text", &id.source, &id.hasSource},
		{"delivered_text", &id.delivered, &id.hasDelivered},
		{"full_render_text", &id.fullRender, &id.hasFullRender},
		{"template_text", &id.template, &id.hasTmpl},
	} {
		if *f.text, *f.ok, err = optText(in, f.path); err != nil {
			return id, err
		}
	}
	if v := in.Get("nondeterministic"); v.Exists() && v.Type() != view.Null {
		if !v.IsBool() {
			return id, fmt.Errorf("field %q must be true or false", "nondeterministic")
		}
		id.nondeterministic = v.Bool()
	}
	if v := in.Get("truncated"); v.Exists() && v.Type() != view.Null {
		if !v.IsBool() {
			return id, fmt.Errorf("field %q must be true or false", "truncated")
		}
		t := v.Bool()
		id.truncated = &t
	}
	if v := in.Get("truncation_limit_chars"); v.Exists() && v.Type() != view.Null {
		if id.limit, err = scenario.WholeCount("truncation_limit_chars", v); err != nil {
			return id, err
		}
		id.hasLimit = true
	}
	id.renderStatus = events.AttrStr(a, "context.input.delivered.full_render.status")
	id.transform = events.AttrStr(a, "context.input.delivered.transform")
	if id.transform == "" {
		id.transform = transform
	}
	id.role = events.AttrStr(a, "context.input.duplicate.role")
	id.policy = events.AttrStr(a, "context.input.duplicate.suppression_policy")
	id.scope = s.Conversation
	if v := in.Get("conversation_id"); v.Type() == view.String {
		id.scope = s.Pass(leak.IDOrUUID, v.Str())
		a.Set("gen_ai.conversation.id", receipt.S(id.scope))
	}
	if id.scope == "" {
		id.scope = s.ID
	}
	if id.scope == "" {
		id.scope = "unknown_session"
	}
	return id, nil
}

// isClipOf reports whether delivered is a strict prefix of full once both
// are in the canonical text form.
func isClipOf(delivered, full view.Text) bool {
	d, f := delivered.Canonical(), full.Canonical()
	return d.Len() < f.Len() && f.HasPrefixText(d)
}

// writeIdentity writes the identity split and enforces its invariants:
// a full render that was never materialised carries no hash; a clip names
// its full render or says why it cannot; a nondeterministic delivery names
// its template; and a duplicate is only suppressed when its full render is
// known to be equal.
func writeIdentity(s *scenario.Session, a *receipt.Attrs, id identity) error {
	if id.hasSource {
		events.SourceIdentity(a, s.Hash, id.source, "")
	}
	if !id.hasDelivered {
		return undelivered(s, a, id)
	}
	st := inputsOf(s)
	st.delivered++
	delivered := id.delivered.Digest(s.Hash)
	events.DeliveredIdentity(a, s.Hash, id.delivered, delivered, id.transform, true)
	truncated, err := id.truncation()
	if err != nil {
		return err
	}
	status, err := writeFullRender(s, a, id, truncated, delivered)
	if err != nil {
		return err
	}
	if err := writeTemplate(s, a, id); err != nil {
		return err
	}
	a.Set("context.input.delivered.truncated", receipt.B(truncated))
	if id.hasLimit {
		a.Set("context.input.delivered.truncation_limit_chars", receipt.Copied(id.limit))
	}
	if truncated {
		st.truncated++
	}

	// Dedupe on the full render when it is known, so two clips of equal
	// length from different renders never share a key; otherwise on what was
	// delivered, and then the policy must keep equal keys distinct.
	if status == fullRenderAvailable {
		return dedupe(s, a, id, "full_render_canonical", ifElseText(id.hasFullRender, id.fullRender, id.delivered).CanonicalDigest(s.Hash), false)
	}
	return dedupe(s, a, id, "delivered_canonical", id.delivered.CanonicalDigest(s.Hash), true)
}

// undelivered writes an input whose delivered text the log does not hold:
// then it holds no delivery details either, and dedupes on its source.
func undelivered(s *scenario.Session, a *receipt.Attrs, id identity) error {
	for _, f := range []bool{id.hasFullRender, id.hasTmpl, id.truncated != nil, id.hasLimit, id.renderStatus != ""} {
		if f {
			return fmt.Errorf("delivery details given without delivered_text")
		}
	}
	events.DeliveredNotLogged(a)
	if !id.hasSource {
		return nil
	}
	return dedupe(s, a, id, "source_canonical", id.source.CanonicalDigest(s.Hash), false)
}

// truncation says whether the delivery is a clip: declared, or inferred
// from the full render (or source); a truncation limit needs a clip that
// fits it.
func (id identity) truncation() (bool, error) {
	var truncated bool
	switch {
	case id.truncated != nil:
		truncated = *id.truncated
	case id.hasFullRender:
		truncated = isClipOf(id.delivered, id.fullRender)
	case id.renderStatus == fullRenderNotMaterial:
		truncated = true
	case id.hasSource:
		truncated = isClipOf(id.delivered, id.source)
	}
	if id.hasLimit {
		if !truncated {
			return false, fmt.Errorf("truncation_limit_chars given for a delivery that is not truncated")
		}
		if int64(id.delivered.RuneCount()) > id.limit {
			return false, fmt.Errorf("delivered_text is longer than truncation_limit_chars")
		}
	}
	return truncated, nil
}

// writeFullRender writes the full render (materialised, never
// materialised, or not logged) and returns its status; delivered is the
// delivered text's digest.
func writeFullRender(s *scenario.Session, a *receipt.Attrs, id identity, truncated bool, delivered string) (string, error) {
	status, render := id.renderStatus, ""
	switch {
	case id.hasFullRender && status == fullRenderNotMaterial:
		return "", fmt.Errorf("full_render_text given while full_render_status says it was never materialized")
	case status == fullRenderNotMaterial:
		if !truncated {
			return "", fmt.Errorf("full_render_status unavailable_not_materialized on a delivery that is not truncated")
		}
	case status == fullRenderNotLogged:
		if id.hasFullRender {
			return "", fmt.Errorf("full_render_text given while full_render_status says it was not logged")
		}
	case status != "" && status != fullRenderAvailable:
		return "", fmt.Errorf("unknown full_render_status")
	case id.hasFullRender:
		if truncated && !isClipOf(id.delivered, id.fullRender) {
			return "", fmt.Errorf("truncated delivered_text is not a prefix of full_render_text")
		}
		if !truncated && !id.delivered.Canonical().Equal(id.fullRender.Canonical()) {
			return "", fmt.Errorf("full_render_text differs from an untruncated delivered_text")
		}
		status, render = fullRenderAvailable, id.fullRender.Digest(s.Hash)
	case truncated:
		if status == fullRenderAvailable {
			return "", fmt.Errorf("full_render_status available on a truncated delivery without full_render_text")
		}
		status = fullRenderNotLogged
	default: // not clipped: what was delivered is the full render
		status, render = fullRenderAvailable, delivered
	}
	if render != "" {
		a.Set("context.input.delivered.full_render.hash", receipt.S(render))
	}
	a.Set("context.input.delivered.full_render.status", receipt.S(status))
	if status != fullRenderAvailable {
		inputsOf(s).renderUnknown++
	}
	return status, nil
}

// writeTemplate writes the template a delivery was rendered from: a
// nondeterministic delivery names its template and why it varies.
func writeTemplate(s *scenario.Session, a *receipt.Attrs, id identity) error {
	tmpl := "none"
	if id.hasTmpl {
		tmpl = id.template.Digest(s.Hash)
	}
	a.Set("context.input.delivered.template_hash", receipt.S(tmpl))
	a.Set("context.input.delivered.nondeterministic", receipt.B(id.nondeterministic))
	reason := events.AttrStr(a, "context.input.delivered.nondeterminism_reason")
	switch {
	case id.nondeterministic && reason == "":
		return fmt.Errorf("nondeterministic delivery without nondeterminism_reason")
	case id.nondeterministic && !id.hasTmpl:
		return fmt.Errorf("nondeterministic delivery without template_text: its renders could not be grouped")
	case !id.nondeterministic && reason != "":
		return fmt.Errorf("nondeterminism_reason given for a deterministic delivery")
	}
	return nil
}

func ifElseText(c bool, a, b view.Text) view.Text {
	if c {
		return a
	}
	return b
}

// dedupe writes the duplicate-suppression identity: key, scope, policy, role
// and risk. renderUnknown says the key is over a clip whose full render is
// unknown.
func dedupe(s *scenario.Session, a *receipt.Attrs, id identity, basis, content string, renderUnknown bool) error {
	key := id.scope + ":" + content
	policy := id.policy
	if policy == "" {
		switch {
		case renderUnknown:
			policy = policyKeepRenderUnknow
		case id.nondeterministic:
			policy = policyKeepTemplate
		default:
			policy = policySuppressEqual
		}
	}
	if renderUnknown && policy == policySuppressEqual {
		return fmt.Errorf("suppression policy suppresses equal clips although the full render is unknown")
	}
	st := inputsOf(s)
	seen := st.dedupe[key]
	// Renders of one template from one source are candidates for each
	// other, never proven duplicates.
	tmplKey := ""
	if id.nondeterministic && id.hasTmpl && id.hasSource {
		tmplKey = id.scope + ":" + id.template.Digest(s.Hash) + ":" + id.source.CanonicalDigest(s.Hash)
	}
	role, risk := id.role, "none_observed"
	switch {
	case role == "duplicate" || role == "candidate_duplicate" || role == "suppressed":
		if !seen {
			return fmt.Errorf("duplicate_role names a duplicate but no earlier load has its dedupe key")
		}
		if role == "candidate_duplicate" {
			risk = "duplicate_not_proven"
			if strings.HasPrefix(policy, "keep_distinct_cross_client") {
				risk = "cross_client_duplicate_possible"
			}
		} else {
			risk = "repeated_delivery"
		}
	case role != "" && role != "selected":
		return fmt.Errorf("unknown duplicate_role")
	case seen && policy == policySuppressEqual:
		if role == "selected" {
			return fmt.Errorf("duplicate_role selected for a delivery whose dedupe key was already loaded")
		}
		role, risk = "duplicate", "repeated_delivery"
	case seen && renderUnknown:
		role, risk = "candidate_duplicate", "clipped_prefix_match_full_render_unknown"
	case seen:
		role, risk = "candidate_duplicate", "duplicate_not_proven"
	case tmplKey != "" && st.templates[tmplKey]:
		role, risk = "candidate_duplicate", "same_template_payload_differs"
	default:
		role = "selected"
	}
	st.dedupe[key] = true
	if tmplKey != "" {
		st.templates[tmplKey] = true
	}
	a.Set("context.input.duplicate.dedupe_key", receipt.S(key))
	a.Set("context.input.duplicate.dedupe_basis", receipt.S(basis))
	a.Set("context.input.duplicate.dedupe_scope", receipt.S("conversation"))
	a.Set("context.input.duplicate.suppression_policy", receipt.S(policy))
	a.Set("context.input.duplicate.role", receipt.S(role))
	a.Set("context.input.duplicate.risk", receipt.S(risk))
	return nil
}
