package opencode

import (
	"context"
	"database/sql"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// storeMark is the field a kin's store puts first on each line it writes
// (its value the kin's converter name): the database's name is what tells
// a kin's sessions from OpenCode's, whose records have the same shapes,
// and the mark carries it to detection, which sees only the lines.
const storeMark = "$store"

// Variant is the converter of an agent that keeps its sessions in
// OpenCode's schema under a database of its own (Kilo's kilo.db): this
// reader, under the agent's name, reading only the sessions of its store.
// Its store is OpenCode's (the same tables, queries and lines), each line
// marked with the converter's name; its record types are OpenCode's, given
// only to marked lines, and OpenCode's reader gives marked lines none, so
// neither reader takes the other's sessions. storeName names the database
// files; seeds the sample folders.
func Variant(name, agent, doc string, storeName func(base string) bool, locations []converters.Location, seeds []string) converters.Converter {
	mark := []byte(`{"` + storeMark + `":"` + name + `",`)
	pass := leak.Paths{storeMark: leak.Label} // the mark is the converter's name, written in clear
	for k, v := range opencodePass {
		pass[k] = v
	}
	return converters.Converter{
		Name:        name,
		Doc:         doc,
		SpanName:    "invoke_agent",
		Types:       opencodeTypes,
		OpenTypes:   true,
		PassThrough: pass,
		Labels:      append([]string{name}, opencodeLabels...),
		Events: []string{
			"context.audit_gap.recorded", "context.skill.invoked", "mcp.tool_call.completed",
			"context.compaction.started", "context.compaction.summary_loaded", "subagent.spawned",
			"subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State {
			c := newOpencode(env)
			c.agent = agent
			return c
		},
		Native: &converters.Format{
			Type: func(r converters.Record) view.Value {
				if !r.Top(storeMark).Str().Is(name) {
					return view.Value{}
				}
				return opencodeShape(r)
			},
			Time:      opencodeTime,
			Locations: locations,
			Seeds:     seeds,
			IDs:       opencodeIDs, // a fork's ids are OpenCode's (its Identifier)
			Store: &converters.Store{
				Name:     storeName,
				NameOnly: true, // its tables are OpenCode's: a database of another name is OpenCode's
				Claim:    opencodeClaim,
				Sessions: opencodeSessions,
				Lines: func(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
					var line []byte
					return opencodeLines(ctx, db, session, func(l []byte) error {
						if len(l) < 2 || l[0] != '{' {
							return emit(l)
						}
						line = append(append(line[:0], mark...), l[1:]...)
						if l[1] == '}' { // an empty object: no comma after the mark
							line = append(append(line[:0], mark[:len(mark)-1]...), '}')
						}
						return emit(line)
					})
				},
			},
		},
	}
}
