// Package outname is how an input's file name appears in what convert
// writes: kept when it is shaped like an agent's own session file name,
// else a digest. It is a leaf the pipeline, which writes outputs, and
// internal/untrusted, which reads them back, share, so that reading
// receipts (convert diff, audit, report) links no converter's reader.
package outname

import (
	"regexp"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/receipt"
)

// InputFileName is an input's file name as outputs carry it (their own
// names, the summary's convert.input.path, the manifest's outputs): the
// name as it is when it is shaped like an agent's own session file name
// (IDShapedName), the session id when a format's layout reads one from the
// name (converters.SessionID: an archive or a sidecar read as a session's
// input), else "input-" and 12 hex digits of its stem's digest
// under h (keyed in keyed mode), with its extensions. A name the user
// chose (alice-payroll-notes.jsonl) may say who or what the session was
// about, and outputs are made to be shared.
func InputFileName(h receipt.Hasher, base string) string {
	stem, ext := splitExt(base)
	if IDShapedName(stem) {
		return base
	}
	// A name an agent gives a session's other files (an OpenClaw archive,
	// <id>.jsonl.reset.<time>; a Droid sidecar, <id>.settings.json) when
	// such a file is the session's input: named by the id it carries.
	if id := converters.SessionID(base); id != "" && IDShapedName(id) {
		return id + ext
	}
	_, hx, _ := strings.Cut(h.Text(stem), ":")
	return inputPrefix + hx[:12] + ext
}

const inputPrefix = "input-"

// splitExt cuts a file name's input extensions (.jsonl, .ndjson, .json,
// .log, each optionally .gz or .zst, and .meta.json) from its stem.
func splitExt(base string) (stem, ext string) {
	stem = base
	for _, e := range []string{".gz", ".zst"} {
		if strings.HasSuffix(stem, e) {
			stem = strings.TrimSuffix(stem, e)
			break
		}
	}
	for _, e := range []string{".meta.json", ".jsonl", ".ndjson", ".json", ".log"} {
		if strings.HasSuffix(stem, e) && len(stem) > len(e) {
			stem = strings.TrimSuffix(stem, e)
			break
		}
	}
	return stem, base[len(stem):]
}

// IDShapedName reports a file stem of the shapes agents name their session
// files with: a UUID (Claude Code, Cursor, Copilot CLI), rollout-<time>-<UUID>
// (Codex), session-<time>-<hex> or session-<UUID or hex> (Gemini CLI, the
// hook's digest names), <time>_<UUID> (pi), agent-<hex> (Claude Code
// subagents), ses_<id> (OpenCode), a hex id,
// Copilot CLI's events, a Claude Code workflow run's journal, Kimi CLI's wire, standard
// input (stdin), a word that names a log's role and never its subject (in,
// input, log, transcript: a harness that copies each log to in.jsonl finds
// in.receipt.ndjson), or a name this function gave (input-<12 hex>).
func IDShapedName(stem string) bool {
	if idNameRe().MatchString(stem) {
		return true
	}
	// A hex id holds a letter: a bare number (a phone or card number) is
	// no id, whatever its digits.
	m := hexNameRe().FindStringSubmatch(stem)
	return m != nil && strings.Trim(m[1], "0123456789") != ""
}

var idNameRe = sync.OnceValue(func() *regexp.Regexp {
	const uuid = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	const when = `[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}[-:][0-9]{2}([-:][0-9]{2})?)?`
	return regexp.MustCompile(`^(` + uuid + `|rollout-` + when + `-` + uuid + `|session-(` + when + `-[0-9a-f]{8}|` + uuid + `)` +
		`|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}(-[0-9]{3})?Z?_` + uuid +
		`|agent-` + uuid + `|` + OpenCodeSession + `|events|journal|wire|stdin|in|input|log|transcript|(input|session)-[0-9a-f]{12})$`)
})

// hexNameRe: a hex id of 6 to 24 digits (Claude Code's agent-a<16 hex>),
// the id kind's (leak.ID): 32 hex digits are an API key's form, 40 a
// token's, 64 a digest a guess list reverses.
var hexNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:agent-a?)?([0-9a-f]{6,24})$`)
})

// OpenCodeSession is OpenCode's session id: "ses_", 12 hex digits of its
// time and 14 base62 characters (its Identifier).
const OpenCodeSession = `ses_[0-9a-f]{12}[0-9A-Za-z]{14}`
