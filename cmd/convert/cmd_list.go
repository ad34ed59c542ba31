package main

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/scenario"
	"github.com/urfave/cli/v2"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list the converters: the agents first, then the scenario converters; name, then what it reads",
		UsageText: "convert list [-v] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "also print each scenario converter's record types, the events they become and the invariants its table declares"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("list takes no arguments")
			}
			if c.Bool("json") {
				type entry struct {
					Name   string   `json:"name"`
					Doc    string   `json:"doc"`
					Native bool     `json:"native"`
					Types  []string `json:"record_types"`
					Events []string `json:"events"`
				}
				out := struct {
					Converters []entry `json:"converters"`
				}{Converters: []entry{}}
				for _, cv := range converters.All() {
					out.Converters = append(out.Converters, entry{cv.Name, cv.Doc, cv.Native != nil, append([]string{}, cv.Types...), append([]string{}, cv.Events...)})
				}
				return printJSON(c, out)
			}
			// The agents a newcomer looks for first, then the reference
			// suite's scenario converters, apart.
			var agents, scenarios []converters.Converter
			width := 0
			for _, cv := range converters.All() {
				width = max(width, len(cv.Name))
				if cv.Native != nil {
					agents = append(agents, cv)
				} else {
					scenarios = append(scenarios, cv)
				}
			}
			for i, g := range []struct {
				head string
				cvs  []converters.Converter
			}{
				{"Agents (their logs are found and detected: convert run reads them with no --converter):", agents},
				{"Scenario converters (the reference suite's JSONL formats; detected too, or give --converter NAME):", scenarios},
			} {
				if len(g.cvs) == 0 {
					continue
				}
				if i > 0 {
					con(c).Data("")
				}
				con(c).Data("%s", g.head)
				for _, cv := range g.cvs {
					con(c).Data("  %-*s  %s", width, cv.Name, cv.Doc)
					if c.Bool("verbose") {
						listTable(c, cv.Name)
					}
				}
			}
			return nil
		},
	}
}

// listTable prints a scenario converter's table as `list -v` shows it: each
// record type, the event it becomes, and its invariants, all generated from
// the table itself so that the listing cannot drift from the code.
func listTable(c *cli.Context, name string) {
	recs, ok := scenario.Table(name)
	if !ok {
		return
	}
	for _, r := range recs {
		event := r.Event
		if event == "" {
			event = "(no event: feeds state)"
		}
		con(c).Data("    %s -> %s", r.Type, event)
		for _, inv := range r.Invariants {
			con(c).Data("        %s", inv)
		}
	}
}
