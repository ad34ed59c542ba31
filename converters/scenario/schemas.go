package scenario

import (
	"maps"
	"slices"

	"github.com/contextreceipts/convert/converters/events"
)

// EventSchemas renders every generated event schema, by event name, from
// the scenario tables (in name and record-type order) and the DeclareEvent
// declarations; the error lists the events whose declarations are
// incomplete (the map holds the others).
func EventSchemas() (map[string][]byte, error) {
	specs := events.NewSpecs()
	for _, name := range Scenarios() {
		plans := ScenarioPlan(name)
		for _, typ := range slices.Sorted(maps.Keys(plans)) {
			p := plans[typ]
			for _, ev := range p.writes() {
				specs.Table(ev, p.Title, TableAttrs(plans, p))
			}
		}
	}
	return specs.Render()
}

// writes lists the events a record's attributes go into.
func (p *RecPlan) writes() []string {
	if p.Event == "" {
		return p.Emits
	}
	return append([]string{p.Event}, p.Emits...)
}

// TableAttrs lists the attributes the moves of a record write on its
// events: their own keys, the keys they copy from the root span (typed by
// the moves that wrote them there) and those they declare with Sets.
func TableAttrs(plans map[string]*RecPlan, p *RecPlan) []events.Attr {
	onSpan := map[string]Move{}
	for _, typ := range slices.Sorted(maps.Keys(plans)) {
		for _, m := range plans[typ].Moves {
			if m.spanKey != "" {
				onSpan[m.spanKey] = m
			}
			if m.Key != "" {
				if _, ok := onSpan[m.Key]; !ok && len(m.fromSpan) == 0 {
					onSpan[m.Key] = m // Noting: noted under its own key
				}
			}
		}
	}
	var out []events.Attr
	for _, m := range p.Moves {
		if m.Key != "" {
			out = append(out, m.Attr)
		}
		for _, a := range m.also {
			out = append(out, a)
		}
		for _, k := range m.fromSpan {
			src := onSpan[k].Attr
			src.Key, src.Required = k, false
			out = append(out, src)
		}
	}
	return append(out, p.Writes...)
}
