package scenarios

import (
	"github.com/contextreceipts/convert/converters/scenario"
	"github.com/contextreceipts/convert/internal/receipt"
)

func sessionTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "session",
		Doc:      "Post-hoc session log: instruction files and retrieved context that entered the prompt, tool calls counted",
		SpanName: "agent.session",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"after_compaction", "correct_money_types", "file_access", "mcp-memory-retrieval", "native-file-discovery",
			"nested_rules", "post-compaction-reload", "retrieval_result", "retrieved_context",
		},
		// Session logs carry the instruction text itself.
		Hints: []string{"source_text", "source_path"},
		Records: map[string]scenario.Rec{
			"context.input": contextInputLoaded("as-recorded-by-session-log"),
			// Tool calls are counted, never described: names, paths and
			// commands are raw.
			"tool.call": {Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
				scenario.StateOf[sessionState](s).toolCalls++
				return nil
			}},
		},
		NewState: func() any { return &sessionState{inputState: newInputState()} },
		End: func(s *scenario.Session) error {
			s.Span.Set("session.tool_call.count", receipt.Computed(scenario.StateOf[sessionState](s).toolCalls))
			s.Span.Set("session.context_input.unique_count", receipt.Computed(int64(len(inputsOf(s).dedupe))))
			return nil
		},
	}
}

func init() { scenario.Define("session", sessionTable) }

// sessionState counts the tool calls for the root span; the inputs are
// context_input's.
type sessionState struct {
	*inputState
	toolCalls int64
}
