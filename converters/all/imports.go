// Package all is the list of the converters the convert binary links:
// importing it (blank) registers every one of them. A reader or a set of
// scenario tables that is not listed here is not in the binary.
package all

// The event schemas (schemas/events) and the definitions they share are
// generated from the declarations of everything listed here.
//go:generate go run ../gendefs ../../schemas/defs.schema.json ../../schemas/events

import (
	// The agents' own log formats, one package per reader.
	_ "github.com/contextreceipts/convert/converters/amp"
	_ "github.com/contextreceipts/convert/converters/antigravity"
	_ "github.com/contextreceipts/convert/converters/claudecode"
	_ "github.com/contextreceipts/convert/converters/codebuff"
	_ "github.com/contextreceipts/convert/converters/codex"
	_ "github.com/contextreceipts/convert/converters/copilotcli"
	_ "github.com/contextreceipts/convert/converters/cursor"
	_ "github.com/contextreceipts/convert/converters/droid"
	_ "github.com/contextreceipts/convert/converters/geminicli"
	_ "github.com/contextreceipts/convert/converters/goose"
	_ "github.com/contextreceipts/convert/converters/grok"
	_ "github.com/contextreceipts/convert/converters/hermes"
	_ "github.com/contextreceipts/convert/converters/kimicli"
	_ "github.com/contextreceipts/convert/converters/opencode"
	_ "github.com/contextreceipts/convert/converters/piagent"
	_ "github.com/contextreceipts/convert/converters/qwencode"
	_ "github.com/contextreceipts/convert/converters/zcode"
	// The per-scenario event logs, one table each.
	_ "github.com/contextreceipts/convert/converters/scenarios"
)
