package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// memory keeps two facts apart that shared-memory setups tend to merge: what
// the memory layer returned for a query (memory.search.returned, the
// server's claim) and what the client actually inserted into the prompt
// (context.input.loaded, the harness's claim). A load must name a search
// that returned that memory earlier in the log; its source identity is the
// text the search returned, its delivered identity what the client inserted.
// Queries, project names, ids, URIs and memory bodies are raw: only hashed.
func memoryTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "memory",
		Doc:      "Shared-memory recall: what the memory layer returned vs what the client inserted into context",
		SpanName: "agent.session.memory",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"cursor-memory-client", "mcp-memory-client", "mcp_memory", "prefixed-with-memory-tag", "recall_before_edit",
			"supermemory-mcp", "team-memory-mcp",
		},
		// Memory loads name the retrieval and memory they came from.
		Hints: []string{"retrieval_id", "memory_id"},
		Records: map[string]scenario.Rec{
			"memory.search": {
				Event: "memory.search.returned",
				Title: "memory.search.returned: what a memory layer returned for one query (not what entered the prompt)",
				Moves: []scenario.Move{
					scenario.Req(scenario.Label("provider", "memory.provider")),
					scenario.Label("client", "memory.client"),
					scenario.Hash("project", "memory.project.hash"),
					scenario.Req(scenario.Hash("retrieval_id", "memory.retrieval.id_hash")),
					scenario.Req(scenario.Hash("query_text", "memory.query.hash")),
					scenario.Hash("snapshot_id", "memory.snapshot.id_hash"),
					scenario.Req(scenario.Count("results", "memory.result.count")),
					scenario.ListBucket("results", "memory.result.count_bucket"),
					scenario.Hash("results.#.id", "memory.result.ids_hash"),
					scenario.Hash("results", "memory.result.payloads_hash"),
					scenario.Int("latency_ms", "memory.latency_ms"),
					scenario.Bucket("latency_ms", "memory.latency_bucket", receipt.LatencyLadder),
					scenario.Const("memory.privacy.raw_query_recorded", receipt.B(false)),
					scenario.Const("memory.privacy.raw_result_recorded", receipt.B(false)),
					scenario.Const("memory.audit_gap", receipt.S("search_receipt_proves_returned_results_not_prompt_insertion")),
					scenario.SessionIDs(),
				},
				Writes: []events.Attr{
					events.Sets("memory.result.top.id_hash", events.DefDigest),
					events.Sets("memory.result.top.score_bucket", events.LadderDef(scenario.ScoreLadder)),
				},
				Hook: memorySearched,
			},
			"context.input": contextInputRec("as-returned-by-memory-client", []scenario.Move{
				scenario.Hash("retrieval_id", "context.input.retrieval.id_hash"),
				scenario.Hash("memory_id", "context.input.memory.id_hash"),
				scenario.Hash("memory_id", "context.input.source.memory_id_hash"),
				{Apply: crossClientPolicy},
				{Attr: events.SetsConst("context.input.duplicate.suppression_policy", receipt.S("keep_distinct_cross_client_load_until_loaded_receipt_proves_suppression"))},
				// returnedMemory's
				{Attr: events.SetsConst("context.input.memory.returned_by_search", receipt.B(true)).Doc("the loaded memory is one the referenced memory.search.returned event listed (always true: the converter fails otherwise)")},
				{Attr: events.Sets("context.input.memory.delivered_matches_returned", events.DefBool).Doc("the delivered text equals, in canonical form, the text the memory layer returned")},
			}, returnedMemory),
		},
		NewState: func() any {
			return &memoryState{inputState: newInputState(), retrievals: map[string]bool{}, returned: map[string]string{}, loaded: map[string]bool{}}
		},
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[memoryState](s)
			s.Span.Set("memory.search.count", receipt.Computed(st.searches))
			s.Span.Set("memory.result.returned_count", receipt.Computed(int64(len(st.returned))))
			s.Span.Set("memory.result.loaded_count", receipt.Computed(int64(len(st.loaded))))
			s.Span.Set("memory.result.returned_not_loaded_count", receipt.Computed(int64(len(st.returned)-len(st.loaded))))
			return nil
		},
	}
}

func init() { scenario.Define("memory", memoryTable) }

// memoryState keeps the searches by retrieval id digest and the returned
// memories by memoryKey, with the text each search returned: raw input that
// stays in memory and is never put in an error.
type memoryState struct {
	*inputState
	retrievals map[string]bool
	returned   map[string]string // memoryKey -> returned text ("" when none)
	loaded     map[string]bool
	searches   int64
}

// memoryKey names one returned memory by digests only: state an error could
// print never holds raw ids.
func memoryKey(s *scenario.Session, retrieval, id view.Text) string {
	return retrieval.Digest(s.Hash) + "/" + id.Digest(s.Hash)
}

// memorySearched remembers what each search returned, writes the top
// result's identity and score bucket, and enforces that a retrieval id names
// one search and that a search lists each memory once.
func memorySearched(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, ret := scenario.StateOf[memoryState](s), v.Get("retrieval_id").String()
	if st.retrievals[ret.Digest(s.Hash)] {
		return fmt.Errorf("retrieval_id repeats an earlier search")
	}
	st.retrievals[ret.Digest(s.Hash)] = true
	st.searches++
	top, topScore := view.Value{}, -1.0
	seen := map[string]bool{} // by digest: a key outlives the line
	for _, res := range v.Get("results").Array() {
		id, text := res.Get("id"), res.Get("text")
		if id.Type() != view.String || id.Str().Empty() {
			return fmt.Errorf("every result needs a string id")
		}
		if seen[id.Str().Digest(s.Hash)] {
			return fmt.Errorf("a search result lists the same memory id twice")
		}
		seen[id.Str().Digest(s.Hash)] = true
		key := memoryKey(s, ret, id.Str())
		st.returned[key] = ""
		if text.Type() == view.String {
			st.returned[key] = text.Str().Own() // kept for the load that names it
		}
		if sc := res.Get("score"); sc.Type() == view.Number && sc.Num() > topScore {
			top, topScore = res, sc.Num()
		}
	}
	if top.Exists() {
		a.Set("memory.result.top.id_hash", receipt.S(top.Get("id").Str().Digest(s.Hash)))
		if topScore < 0 || topScore > 1 {
			return fmt.Errorf("result score must be within 0 and 1")
		}
		a.Set("memory.result.top.score_bucket", receipt.S(scenario.ScoreLadder.Bucket(int64(topScore*1000+0.5))))
	}
	return nil
}

// returnedMemory supplies the source of a memory load: the text the named
// search returned. A load naming a search or memory the log never returned
// is an error: the client cannot insert what the memory layer did not give.
func returnedMemory(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) (view.Text, bool, error) {
	ret, id := v.Get("retrieval_id"), v.Get("memory_id")
	if !ret.Exists() && !id.Exists() {
		text, ok, err := optText(v, "source_text")
		return text, ok, err
	}
	if ret.Type() != view.String || id.Type() != view.String {
		return view.Text{}, false, fmt.Errorf("a memory load needs both retrieval_id and memory_id")
	}
	st := scenario.StateOf[memoryState](s)
	if !st.retrievals[ret.Str().Digest(s.Hash)] {
		return view.Text{}, false, fmt.Errorf("retrieval_id names no earlier memory.search record")
	}
	key := memoryKey(s, ret.Str(), id.Str())
	text, returned := st.returned[key]
	if !returned {
		return view.Text{}, false, fmt.Errorf("memory_id was not among the results its search returned")
	}
	st.loaded[key] = true
	a.Set("context.input.memory.returned_by_search", receipt.B(true))
	if text == "" {
		return view.Text{}, false, nil
	}
	if d := v.Get("delivered_text"); d.Type() == view.String {
		a.Set("context.input.memory.delivered_matches_returned", receipt.B(d.Str().Canonical().Equal(view.Borrow(text).Canonical())))
	}
	return view.Borrow(text), true, nil
}

// crossClientPolicy: a load the client itself marks as a candidate
// duplicate (the same memory surfaced in another client) is kept distinct
// until a loaded receipt proves suppression, unless the record names a
// policy.
func crossClientPolicy(_ *scenario.Session, _ view.Value, a *receipt.Attrs) error {
	if events.AttrStr(a, "context.input.duplicate.role") == "candidate_duplicate" && events.AttrStr(a, "context.input.duplicate.suppression_policy") == "" {
		a.Set("context.input.duplicate.suppression_policy", receipt.S("keep_distinct_cross_client_load_until_loaded_receipt_proves_suppression"))
	}
	return nil
}
