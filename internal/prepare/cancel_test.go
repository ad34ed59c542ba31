package prepare

import (
	"context"
	"errors"
	"testing"
)

// cancelEmbedder cancels the run's context while it embeds.
type cancelEmbedder struct{ cancel context.CancelFunc }

func (e cancelEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	e.cancel()
	return HashEmbed(text), nil
}

// TestPrepareHonoursCancellation: a cancelled context stops Prepare, at the
// start, inside round 0 or inside an expansion round, and nothing is
// returned: no PreparedContext built from a partial recall.
func TestPrepareHonoursCancellation(t *testing.T) {
	st := openWith(t, mem(scopeA, "m1", 1, body(200, "ledger", "sqlite")))
	g := DefaultGatePolicy() // one candidate is thin: the gate expands
	tests := []struct {
		name string
		opt  func(cancel context.CancelFunc) Options
		pre  bool // cancelled before Prepare starts
	}{
		{"before it starts", func(context.CancelFunc) Options { return Options{} }, true},
		{"while round 0 embeds the query", func(c context.CancelFunc) Options { return Options{Embedder: cancelEmbedder{c}} }, false},
		{"in an expansion round", func(c context.CancelFunc) Options {
			return Options{Gate: &g, searchFault: func(round int, _, _ string) error {
				if round == 1 {
					c()
				}
				return nil
			}}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.pre {
				cancel()
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: "why sqlite for the ledger", IncludeReceipt: true}
			res, err := NewRuntime(st, fixed(tt.opt(cancel))).Prepare(ctx, req)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if res.Context.Schema != "" || res.Context.Content != nil {
				t.Fatalf("a cancelled Prepare returned %+v", res.Context)
			}
		})
	}
}
