package geminicli

import (
	"sort"

	"github.com/contextreceipts/convert/internal/leak"
)

// geminiIDs are the ids a Gemini CLI chat carries (Format.IDs): session
// and message ids, lower-case UUIDs (randomUUID), and call ids, which
// Gemini CLI makes of the tool's name, the time in milliseconds and a
// random hex or counted suffix, <name>-<ms>[-<hex>] (google-gemini/gemini-cli,
// packages/core/src/core/turn.ts: "read_file-1756822000100-1"). Only a
// built-in tool's call id is written (records.go), so the names are
// geminiBuiltinTools'.
var geminiIDs = leak.IDs{
	leak.UUIDs,
	{Prefixes: geminiCallPrefixes(), Alphabet: leak.Digits, Min: 13, Max: 13, Tail: leak.LowerHex, TailMax: 14,
		Examples: []string{"read_file-1756822000100-1", "run_shell_command-1755788415000", "glob-1774000032000-5a3f9c2e1b4d"}},
}

// geminiCallPrefixes are "<name>-" for each built-in tool, sorted.
func geminiCallPrefixes() []string {
	out := make([]string, 0, len(geminiBuiltinTools))
	for n := range geminiBuiltinTools {
		out = append(out, n+"-")
	}
	sort.Strings(out)
	return out
}
