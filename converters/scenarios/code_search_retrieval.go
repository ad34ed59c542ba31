package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// code_search_retrieval separates what a code-search index returned from
// what the client loaded into the agent's context: an index snapshot, a
// search, one event per returned chunk (rank, score bucket, stale and
// duplicate flags, loaded or suppressed and why) and the load itself. Every
// returned chunk must be either loaded or suppressed. Snapshot, chunk ids,
// commits, embedding names and paths are hashed (a path's extension is kept);
// queries, filters, chunk texts and prompts are raw and only ever hashed.
//
// A result's fate is known only at the load record, so the results record is
// kept (as its own JSON text) and its events are written there, or at the end
// of input with loaded_into_agent_context false when no load was logged.
func codeSearchRetrievalTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "code_search_retrieval",
		Doc:      "Code-search retrieval: index snapshot, search, ranked chunks returned, chunks loaded vs suppressed before the agent",
		SpanName: "agent.session.code_search",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"auth_session_debug", "fresh", "integration_timeout_debug", "top_k_then_dedupe_then_stale_filter",
		},
		Extra: []string{"code.search.result.returned", "context.input.loaded"},
		Records: map[string]scenario.Rec{
			"code.index.snapshot.used": {
				Event: "code.index.snapshot.used",
				Title: "code.index.snapshot.used: the code-search index snapshot a search ran against",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("index_snapshot_id", "code_search.index.snapshot_id_hash")),
					scenario.Hash("codebase_path", "code_search.codebase.path_hash"),
					scenario.Hash("git_commit", "code_search.git.commit_hash"),
					scenario.Bucket("indexed_file_count", "code_search.indexed_file_count_bucket", receipt.CountLadder),
					scenario.Bucket("indexed_chunk_count", "code_search.indexed_chunk_count_bucket", receipt.CountLadder),
					scenario.Hash("embedding_provider", "code_search.embedding.provider_hash"),
					scenario.Hash("embedding_model", "code_search.embedding.model_hash"),
					scenario.Label("snapshot_status", "code_search.snapshot.status"),
					scenario.Const("privacy.raw_codebase_path_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_embedding_config_recorded", receipt.B(false)),
				},
			},
			"code.search.performed": {
				Event: "code.search.performed",
				Title: "code.search.performed: a code search: query identity and candidate scale",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("raw_query", "code_search.query_hash")),
					scenario.Label("query_category", "code_search.query_category"),
					scenario.Hash("filter", "code_search.filter_hash"),
					scenario.Int("top_k", "code_search.top_k"),
					scenario.Bucket("candidate_count", "code_search.candidate_count_bucket", receipt.CountLadder),
					scenario.Hash("index_snapshot_id", "code_search.index.snapshot_id_hash"),
					scenario.Const("privacy.raw_query_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_filter_recorded", receipt.B(false)),
					scenario.Const("audit_gap", receipt.S("receipt_proves_search_identity_and_candidate_scale_not_relevance")),
					scenario.After("index_snapshot_id", "code.index.snapshot.used", "index_snapshot_id").
						Says("search names an index snapshot with no code.index.snapshot.used record before it"),
				},
				Hook: codeSearchPerformed,
			},
			"code.search.results.returned": {
				Moves: []scenario.Move{
					scenario.Use("results"),
					scenario.AfterAny("code.search.performed").Says("results returned before any code.search.performed record"),
					scenario.After("index_snapshot_id", "code.index.snapshot.used", "index_snapshot_id").
						Says("results name an index snapshot with no code.index.snapshot.used record before it"),
				},
				Hook: codeSearchResults,
			},
			"context.input.loaded": {
				Event: "context.input.loaded",
				Moves: []scenario.Move{
					scenario.Use("suppression_reasons"),
					scenario.SessionIDs(),
					scenario.Req(scenario.Const("context.input.kind", receipt.S("retrieved_code_chunks"))),
					scenario.Const("context.input.source", receipt.S("code_search")).Doc("the retrieval system the input came from (code search loads)"),
					scenario.Hash("index_snapshot_id", "code_search.index.snapshot_id_hash"),
					scenario.Label("client_transform", "context.input.client_transform"),
					scenario.Req(scenario.Count("loaded_chunk_ids", "context.input.loaded_chunk_count")),
					scenario.Count("suppressed_chunk_ids", "context.input.suppressed_chunk_count"),
					scenario.Hash("loaded_chunk_ids", "context.input.loaded_chunk_ids_hash"),
					scenario.Hash("suppressed_chunk_ids", "context.input.suppressed_chunk_ids_hash"),
					scenario.Bucket("prompt_token_count", "context.input.prompt_token_bucket", receipt.TokenLadder),
					scenario.Hash("raw_prompt_fragment", "context.input.raw_prompt_hash"),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_code_chunks_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_paths_recorded", receipt.B(false)),
					scenario.Const("audit_gap", receipt.S("receipt_proves_returned_vs_loaded_boundary_not_answer_correctness")).Doc("code-search loads: what the receipt does not prove"),
					scenario.Check("the load follows returned results", func(s *scenario.Session, _ *scenario.Values) error {
						if scenario.StateOf[codeSearchState](s).pending == nil {
							return fmt.Errorf("context loaded with no code.search.results.returned record before it")
						}
						return nil
					}),
					scenario.Disjoint("loaded_chunk_ids", "suppressed_chunk_ids").Says("a chunk is both loaded and suppressed"),
				},
				Writes: []events.Attr{events.SetsConst("context.input.returned_chunks_accounted", receipt.B(true))},
				Hook:   codeSearchLoaded,
			},
		},
		NewState: func() any { return &codeSearchState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[codeSearchState](s)
			if st.pending != nil {
				if err := codeSearchEmitResults(s, nil, nil); err != nil {
					return err
				}
			}
			s.Span.Set("code_search.search.count", receipt.Computed(st.searches))
			s.Span.Set("code_search.result.count", receipt.Computed(st.results))
			s.Span.Set("code_search.result.loaded.count", receipt.Computed(st.loaded))
			return nil
		},
	}
}

func init() { scenario.Define("code_search_retrieval", codeSearchRetrievalTable) }

// codeSearchSuppressionReasons are the suppression reasons written in clear;
// any other reason (a free-text field keyed by chunk id) is written as its
// digest.
var codeSearchSuppressionReasons = map[string]bool{
	"duplicate": true, "stale_snapshot_chunk": true, "stale": true, "over_budget": true,
	"below_score_threshold": true, "filtered": true, "not_selected": true, "policy": true,
}

// codeSearchResultSet is a returned list kept until the load says what became
// of each chunk. It holds raw input (chunk ids, paths, texts) and stays in
// memory: never put it in an error.
type codeSearchResultSet struct {
	results        view.Owned // a copy of the list: it outlives its line
	time, snapshot string
	line           int
}

// codeSearchState is the latest search's top_k, the results waiting for a
// load, and the counts for the root span.
type codeSearchState struct {
	topK                      int64
	pending                   *codeSearchResultSet
	searches, results, loaded int64
}

func codeSearchPerformed(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[codeSearchState](s)
	st.topK = v.Int("top_k")
	st.searches++
	return nil
}

// codeSearchResults checks the returned list and keeps it for the load.
func codeSearchResults(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[codeSearchState](s)
	if st.pending != nil {
		if err := codeSearchEmitResults(s, nil, nil); err != nil {
			return err
		}
	}
	res := v.Get("results")
	if !res.IsArray() {
		return fmt.Errorf("field \"results\" must be a list")
	}
	list := res.Array()
	if k := st.topK; k > 0 && int64(len(list)) > k {
		return fmt.Errorf("more results returned than the search's top_k")
	}
	var last int64
	seen := map[string]bool{}
	for _, e := range list {
		rank, id := e.Get("rank"), e.Get("chunk_id")
		n := rank.Int()
		if rank.Type() != view.Number || n <= last {
			return fmt.Errorf("result ranks must be whole numbers that increase down the list")
		}
		if err := scenario.CountRange("results.#.rank", n); err != nil { // written as it stands
			return err
		}
		last = n
		if id.Type() != view.String {
			return fmt.Errorf("every result needs a chunk_id string")
		}
		if d := e.Get("duplicate_of"); d.Type() == view.String && !seen[d.Str().Digest(s.Hash)] {
			return fmt.Errorf("duplicate_of names a chunk not returned above it")
		}
		seen[id.Str().Digest(s.Hash)] = true
	}
	st.pending = &codeSearchResultSet{results: res.Own(), time: v.Time, line: v.Line}
	if v.Get("index_snapshot_id").Exists() {
		st.pending.snapshot = v.Get("index_snapshot_id").String().Digest(s.Hash)
	}
	return nil
}

// codeSearchLoaded enforces that the load is a partition of the returned
// chunks, writes the kept results' events and the shared load event.
func codeSearchLoaded(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	loaded, err := v.IDList("loaded_chunk_ids")
	if err != nil {
		return err
	}
	supp, err := v.IDList("suppressed_chunk_ids")
	if err != nil {
		return err
	}
	fate := map[string]string{}
	for _, d := range loaded {
		fate[d] = "loaded"
	}
	for _, d := range supp {
		fate[d] = "suppressed"
	}
	reasons := map[string]string{}
	var bad error
	v.Get("suppression_reasons").ForEach(func(k, v view.Value) bool {
		d := k.String().Digest(s.Hash)
		if fate[d] != "suppressed" {
			bad = fmt.Errorf("suppression_reasons names a chunk that is not in suppressed_chunk_ids")
			return false
		}
		if r, _, ok := view.Key(codeSearchSuppressionReasons, v.String()); ok {
			reasons[d] = r
		} else {
			reasons[d] = v.String().Digest(s.Hash)
		}
		return true
	})
	if bad != nil {
		return bad
	}
	if err := codeSearchEmitResults(s, fate, reasons); err != nil {
		return err
	}
	a.Set("context.input.returned_chunks_accounted", receipt.B(true))
	return nil
}

// codeSearchEmitResults writes one code.search.result.returned per kept
// result. fate maps chunk digests to "loaded" or "suppressed"; nil means no
// load was logged. With a load, every returned chunk must have a fate and
// every loaded or suppressed chunk must have been returned.
func codeSearchEmitResults(s *scenario.Session, fate, reasons map[string]string) error {
	st := scenario.StateOf[codeSearchState](s)
	list := st.pending.results.Value().Array()
	snapshot, when, line := st.pending.snapshot, st.pending.time, st.pending.line
	st.pending = nil
	returned := map[string]bool{}
	var events []receipt.Event
	for _, e := range list {
		id := e.Get("chunk_id").Str().Digest(s.Hash)
		returned[id] = true
		var a receipt.Attrs
		if s.ID != "" {
			a.Set("session.id", receipt.S(s.ID))
		}
		if s.Conversation != "" {
			a.Set("gen_ai.conversation.id", receipt.S(s.Conversation))
		}
		if snapshot != "" {
			a.Set("code_search.index.snapshot_id_hash", receipt.S(snapshot))
		}
		a.Set("code_search.result.rank", receipt.Copied(e.Get("rank").Int()))
		if v := e.Get("score"); v.Type() == view.Number {
			n, err := scenario.Scaled("results.#.score", v, 1000)
			if err != nil {
				return err
			}
			a.Set("code_search.result.score_bucket", receipt.S(scenario.ScoreLadder.Bucket(n)))
		}
		a.Set("code_search.result.chunk_id_hash", receipt.S(id))
		if v := e.Get("raw_chunk_text"); v.Type() == view.String {
			a.Set("code_search.result.chunk_text_hash", receipt.S(v.Str().Digest(s.Hash)))
		}
		if v := e.Get("path"); v.Type() == view.String {
			a.Set("code_search.result.path_hash", receipt.S(v.Str().Digest(s.Hash)))
			a.Set("code_search.result.path_extension", receipt.S(codeSearchExtension(v.Str())))
		}
		if st, en := e.Get("start_line"), e.Get("end_line"); st.Type() == view.Number && en.Type() == view.Number {
			a.Set("code_search.result.line_range_bucket", receipt.S(receipt.CountLadder.Bucket(en.Int()-st.Int()+1)))
		}
		if v := e.Get("stale"); v.IsBool() {
			a.Set("code_search.result.stale", receipt.B(v.Bool()))
		}
		if v := e.Get("duplicate_of"); v.Type() == view.String {
			a.Set("code_search.result.duplicate_of_hash", receipt.S(v.Str().Digest(s.Hash)))
		}
		switch {
		case fate == nil:
			a.Set("code_search.result.loaded_into_agent_context", receipt.B(false))
			a.Set("code_search.result.audit_gap", receipt.S("context_load_not_logged"))
		case fate[id] == "":
			return fmt.Errorf("a returned chunk is neither loaded nor suppressed")
		default:
			a.Set("code_search.result.loaded_into_agent_context", receipt.B(fate[id] == "loaded"))
			a.Set("code_search.result.suppressed_before_agent_context", receipt.B(fate[id] == "suppressed"))
			if why := reasons[id]; why != "" {
				a.Set("code_search.result.suppression_reason", receipt.S(why))
			}
		}
		a.Set("privacy.raw_code_chunk_recorded", receipt.B(false))
		a.Set("privacy.raw_path_recorded", receipt.B(false))
		if fate[id] == "loaded" {
			st.loaded++
		}
		events = append(events, receipt.Event{Name: "code.search.result.returned", Time: when, Line: line, Attrs: a})
	}
	for d := range fate {
		if !returned[d] {
			return fmt.Errorf("a loaded or suppressed chunk was not returned by the search")
		}
	}
	for _, ev := range events {
		s.Emit(ev)
	}
	st.results += int64(len(events))
	return nil
}

// codeSearchExtensions are the extensions code search writes in clear: the
// common ones of source, config and docs. An extension is part of a path,
// which is raw input: copied, "alice" of notes.alice would be a raw part
// nobody admitted. So it is written only as one of these words (our
// vocabulary), else "other".
var codeSearchExtensions = []string{
	"c", "cc", "cjs", "clj", "cpp", "cs", "css", "cts", "dart", "ex", "exs", "go", "gradle", "h", "hpp", "hs",
	"html", "ini", "ipynb", "java", "js", "json", "jsx", "kt", "kts", "lua", "m", "markdown", "md", "mdx", "mjs",
	"ml", "mts", "php", "pl", "proto", "py", "r", "rb", "rs", "rst", "sass", "scala", "scss", "sh", "sql",
	"svelte", "swift", "tf", "toml", "ts", "tsx", "txt", "vue", "xml", "yaml", "yml", "zig",
}

// codeSearchExtension returns a path's extension when it is one of
// codeSearchExtensions ("ts", "md"), "other" for any other extension and
// "none" without one.
func codeSearchExtension(p view.Text) string {
	dot := p.LastIndex(".")
	if dot < 0 || dot < p.LastIndex("/") {
		return "none" // path.Ext's rule: the dot of the last element
	}
	ext := p.From(dot + 1)
	if ext.Empty() {
		return "none"
	}
	if w, ok := ext.Word(codeSearchExtensions...); ok {
		return w // our own word, not a copy of the path's bytes
	}
	return "other"
}

// The schema of code.search.result.returned, which this file writes (see events/eventschema.go).
var _ = events.DeclareEvent("code.search.result.returned", events.EventDecl{
	Title: "code.search.result.returned: one ranked chunk the search returned, and whether the client loaded or suppressed it",
	Keys: []events.Attr{
		events.Sets("code_search.index.snapshot_id_hash", events.DefDigest),
		events.SetsConst("code_search.result.audit_gap", receipt.S("context_load_not_logged")),
		events.ReqAttr(events.Sets("code_search.result.chunk_id_hash", events.DefDigest)),
		events.Sets("code_search.result.chunk_text_hash", events.DefDigest),
		events.Sets("code_search.result.duplicate_of_hash", events.DefDigest),
		events.Sets("code_search.result.line_range_bucket", events.LadderDef(receipt.CountLadder)),
		events.ReqAttr(events.Sets("code_search.result.loaded_into_agent_context", events.DefBool)),
		events.SetsProp("code_search.result.path_extension", events.AnyOf(events.Enum("none", "other"), events.Prop{"pattern": "^[a-z0-9]{1,8}$", "type": "string"})),
		events.Sets("code_search.result.path_hash", events.DefDigest),
		events.ReqAttr(events.Sets("code_search.result.rank", events.DefCount)),
		events.Sets("code_search.result.score_bucket", events.LadderDef(scenario.ScoreLadder)),
		events.Sets("code_search.result.stale", events.DefBool),
		events.Sets("code_search.result.suppressed_before_agent_context", events.DefBool),
		events.SetsProp("code_search.result.suppression_reason", events.AnyOf(events.Enum("duplicate", "stale_snapshot_chunk", "stale", "over_budget", "below_score_threshold", "filtered", "not_selected", "policy"), events.Ref(events.DefDigest))),
		events.Sets("gen_ai.conversation.id", events.DefID),
		events.Sets("privacy.raw_code_chunk_recorded", events.DefNever),
		events.Sets("privacy.raw_path_recorded", events.DefNever),
		events.Sets("session.id", events.DefID),
	},
})
