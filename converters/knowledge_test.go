package converters

import (
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
)

// TestRegistryHandsKnowledge: every State a native converter makes knows
// its Format's ids and models, whoever builds the Env (the pipeline, a
// test); a converter without a Format knows none.
func TestRegistryHandsKnowledge(t *testing.T) {
	var got leak.Knowledge
	spy := func(env Env) State { got = env.Know; return nil }
	ids := leak.IDs{leak.UUIDs}
	c := withKnowledge(Converter{New: spy, Native: &Format{IDs: ids, Models: []string{"auto"}}})
	c.New(Env{})
	if len(got.IDs) != 1 || !got.IDs.Match("0822e04b-5551-4de8-a98a-5660c689e49b") || len(got.Models) != 1 || got.Models[0] != "auto" {
		t.Errorf("a native State knows %+v, want its Format's", got)
	}
	got = leak.Knowledge{IDs: ids}
	withKnowledge(Converter{New: spy}).New(Env{})
	if got.IDs != nil || got.Models != nil {
		t.Errorf("a scenario's State knows %+v, want nothing", got)
	}
}
