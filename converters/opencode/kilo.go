package opencode

import "github.com/contextreceipts/convert/converters"

// Kilo keeps its sessions in kilo.db, in OpenCode's schema: this reader
// under Kilo's name (Variant). Its docs, samples and tests are in
// converters/kilo, samples/kilo and golden/kilo.
func init() {
	converters.RegisterBuiltin(Variant("kilo", "kilo",
		"Kilo sessions (kilo.db, OpenCode's schema): tools, MCP, skills, subagents, compaction, tokens",
		func(base string) bool { return base == "kilo.db" },
		[]converters.Location{{Env: "KILO_DATA_DIR", Default: ".local/share/kilo", Below: "kilo.db"}},
		[]string{"samples/kilo"}))
}
