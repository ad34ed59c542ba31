package leak

import "strings"

// A Shape is what the values of one pass-through field must look like to be
// copied into an output. Pass-through is admitted by value, not by field: a
// value outside its field's shape, or one that looks like a secret, is raw
// (the converter hashes it), whatever field it sits in.
type Shape uint8

// The shapes. Each says what a value may be; none admits free text, paths,
// e-mail addresses, non-ASCII text or a random-looking token of its own
// (except ID, whose values are random by nature but carry a known prefix).
const (
	// None is an undeclared field: every value is raw.
	None Shape = iota
	// UUID: 8-4-4-4-12 hex digits (Claude Code uuids, Codex thread ids).
	UUID
	// ID: an agent's opaque id with a known lower-case prefix
	// (msg_, toolu_, call_, req_, ...), 6 to 24 lower-case hex digits (agent
	// and task ids), or a word and a numbered body (tc-0001). Not a UUID:
	// a field whose documented form is a UUID says so (UUID, IDOrUUID), and
	// elsewhere a UUID is a key's shape (Heroku's), as 32 hex digits are
	// (Datadog's).
	ID
	// Time: an ISO 8601 / RFC 3339 timestamp.
	Time
	// Version: a dotted version number (2.1.39, 0.142.4, v1.2.3-beta.1).
	Version
	// Model: a model name (claude-opus-4-5-20251101, gpt-5.5, o3).
	Model
	// Label: an enum-like word (end_turn, tool_use, acceptEdits,
	// SessionStart:startup): short, not random-looking, and one of the
	// program's own words (Vocabulary): a value of a label's syntax the
	// program does not know (a new stop reason, or a name like
	// alice.kowalczyk.payroll) is written as its digest.
	Label
	// Name: a public name users choose (an MCP server or tool, a skill, a
	// subagent type), written in clear only with --reveal names.
	Name
	// EpochMs: a Unix time in milliseconds (years 2000 to 2100), as a
	// string or a number, or the same time as RFC 3339 text (a field one
	// log writes as a number and another as a time: OpenClaw's "ts").
	EpochMs
	// Count: a bounded whole number (a token count, an ordinal), for number
	// leaves only: below MaxCount.
	Count
	// IDOrUUID: an id whose documented form is a UUID or one of ID's
	// (session, turn and thread ids, which formats write either way).
	IDOrUUID
	// Cumulative: a running total (Codex's total_token_usage), for number
	// leaves only: below MaxCumulative. A heavy session passes MaxCount
	// honestly, so its totals get a bound of their own; a phone number
	// fits it, so a reader never writes a cumulative value: it writes
	// the growth between two totals, each one a Count (CumulativeGrowth).
	Cumulative
	// ServerToolName: a Name that an agent forms as <server>_<tool> for an
	// MCP tool (OpenCode): its halves around the first underscore
	// (SplitServerTool) are its parts, as mcp__server__tool's are a Name's.
	ServerToolName
)

var shapeNames = [...]string{"none", "uuid", "id", "time", "version", "model", "label", "name", "epoch_ms", "count", "id_or_uuid", "cumulative", "server_tool_name"}

func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return "shape?"
}

// Paths maps pass-through field paths to the shape of their values: object
// keys joined by ".", with "#" for any array element ("message.content.#.id").
// For number fields, "*.name" declares a field called name at any depth
// ("*.input_tokens": Count).
type Paths map[string]Shape

// MaxCount bounds the numbers a Count field may carry: a token count, a
// duration in milliseconds (11 days) or an ordinal, never a card or phone
// number. Every phone number written with its area code has 10 digits or
// more; the largest cumulative token count of the seed sessions has 8.
const MaxCount = 999_999_999

// MaxCumulative bounds a Cumulative total: ten thousand billion tokens,
// a thousand times a heavy month of one agent.
const MaxCumulative = 9_999_999_999_999

// CumulativeGrowth reports whether d, the growth of a cumulative total
// between two readings, may be written: a Count (one request's tokens are
// far below MaxCount). A larger step (a first total of a phone number's
// size) is not a count a request made, and is not written.
func CumulativeGrowth(d int64) bool { return d >= 0 && d <= MaxCount }

// idPrefixes are the opaque id families agents write.
var idPrefixes = []string{"msg_", "toolu_", "srvtoolu_", "call_", "req_", "fc_", "rs_", "resp_", "ws_", "item_",
	"chatcmpl-", "run_", "thread_", "agent_", "task_", "cmd_", "tool_", "mcp_"}

// openCodePrefixes are OpenCode's own id families, whose grammar is
// exact (openCodeID): a session, a part.
var openCodePrefixes = []string{"ses_", "prt_"}

// openCodeID is the body of an OpenCode id (its Identifier): 12 hex
// digits of its time and 14 base62 characters, "4f1e2d3c5ffeA1b2C3d4E5f6G7".
// "ses_" followed by anything else (ses_alicePayrollQ3) is no id.
func openCodeID(body string) bool {
	if len(body) != 26 || !isHexID(body[:12]) {
		return false
	}
	for i := 12; i < len(body); i++ {
		if !isAlnum(body[i]) {
			return false
		}
	}
	return true
}

// Admit reports whether v may be copied from a field of shape s.
// A value that looks like a secret or personal data (Personal) is never
// admitted, whatever its field.
func (s Shape) Admit(v string) bool {
	if !s.fits(v) {
		return false
	}
	switch s {
	case UUID, Time, EpochMs, Count:
		return true // their whole syntax rules out secrets and personal data
	case Cumulative:
		return true // never written, only subtracted (CumulativeGrowth)
	case IDOrUUID:
		if isUUID(v) || isThreadUUID(v) {
			return true // the field's documented form
		}
	case Label:
		if !knownWord(v) {
			return false // a closed vocabulary: only the words the program knows
		}
	case Model, Name, ServerToolName:
		if nameScreen(v) != "" {
			return false // a path, an e-mail address, a phone number: never a name
		}
	}
	return personal(v) == "" && (s == Version || SecretKind(v) == "")
}

// Clear reports whether a value v of shape s is written in clear by a
// writer that knows no agent (a scenario's): Admit, and for a model name,
// knowledge too. A model name is in clear when the model catalog
// (internal/models, genai-prices) knows it; any other, a local model's
// file name or a deployment named after a person, is written as its
// digest, and in clear only under --reveal names (reveal), where Admit's
// screens still hold: paths, e-mail addresses, phone numbers and secrets
// are never written. A reader of an agent's logs uses ClearFor, which
// adds what its agent knows: its id grammar and its own model names.
func (s Shape) Clear(v string, reveal bool) bool {
	return s.Admit(v) && (s != Model || reveal || KnownModel(v))
}

// nameScreen reports what a model or tool name, a skill or a server
// holds that no name is ("" for none): a path (a root folder first, three
// or more separators, or a file's extension at its end), an e-mail
// address with or without a dotted domain (an '@' before anything but a
// version: "claude-opus-4-5@20251101", "ms-playwright@1" and "search@v2"
// are versions), or a
// phone or account number (a run of 9 or more digits that is no date).
//
//	home/alice/payroll/q3-salaries.xlsx   path
//	alice.kowalczyk@acme                  email
//	0207946095123                         digits
//	openrouter/anthropic/claude-sonnet-4  "" (two separators)
func nameScreen(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '@' && !atVersion(v[i+1:]) {
			return "email"
		}
	}
	if strings.Count(v, "/") >= 3 {
		return "path"
	}
	first, _, _ := strings.Cut(v, "/")
	if strings.Contains(v, "/") && pathRoots[strings.ToLower(first)] {
		return "path"
	}
	last := v[strings.LastIndexByte(v, '/')+1:]
	if i := strings.LastIndexByte(last, '.'); i > 0 && fileExt(last[i+1:]) {
		return "path"
	}
	run := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] >= '0' && v[i] <= '9' {
			run++
			continue
		}
		if run >= 9 {
			return "digits"
		}
		run = 0
	}
	return ""
}

// atVersion reports what may follow an '@' in a name: a version or a
// date ("20251101", "v2", "1", "latest"), never a host.
func atVersion(rest string) bool {
	if strings.HasPrefix(rest, "latest") {
		return true
	}
	rest = strings.TrimPrefix(rest, "v")
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// pathRoots are the folders a path on a machine starts from.
var pathRoots = map[string]bool{"home": true, "users": true, "root": true, "tmp": true, "var": true, "mnt": true,
	"opt": true, "srv": true, "volumes": true, "private": true, "etc": true, "usr": true, "data": true, "c:": true, "~": true}

// fileExt reports a file's extension: 2 to 5 letters, at least one of
// them not a model's size or quantization mark ("gguf", "xlsx", "txt";
// not "5", "mini" or "q4").
func fileExt(e string) bool {
	if len(e) < 2 || len(e) > 5 {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return fileExts[strings.ToLower(e)]
}

var fileExts = map[string]bool{"gguf": true, "ggml": true, "bin": true, "pt": true, "pth": true, "onnx": true,
	"xlsx": true, "xls": true, "csv": true, "docx": true, "doc": true, "pdf": true, "txt": true, "md": true, "json": true,
	"yaml": true, "yml": true, "toml": true, "py": true, "js": true, "ts": true, "go": true, "sh": true, "zip": true, "tar": true,
	"gz": true, "key": true, "pem": true, "env": true, "log": true, "jsonl": true, "sql": true, "db": true, "png": true, "jpg": true}

// Parts returns the parts of an admitted value v of shape s that a reader
// may write on their own, each of which it writes in clear only when the
// whole value was admitted and the part is itself a Name: the server and
// tool of an mcp__server__tool name or a server__tool one (SplitMCP), the
// server of an mcp__server namespace, the halves of a ServerToolName
// (SplitServerTool): the split the reader declares for the field (Split). A part derived from an
// admitted value carries the value's provenance, so the leak check types
// it, wherever else the input repeats it (a tool named after the
// repository it searches).
func (s Shape) Parts(v string) []string {
	var server, tool string
	switch {
	case s == ServerToolName:
		server, tool = SplitServerTool(v)
	case s == Name && strings.Contains(v, "__"):
		server, tool = SplitMCP(v)
	default:
		return nil
	}
	var out []string
	for _, p := range [...]string{server, tool} {
		if p != "" && Name.Admit(p) {
			out = append(out, p)
		}
	}
	return out
}

// Split splits a name of shape s into the server and tool its reader
// writes apart: SplitServerTool for a ServerToolName, SplitMCP otherwise.
func Split(s Shape, name string) (server, tool string) {
	if s == ServerToolName {
		return SplitServerTool(name)
	}
	return SplitMCP(name)
}

// SplitServerTool splits a <server>_<tool> name at its first underscore
// ("" and "" when it has none, or either half would be empty).
func SplitServerTool(name string) (server, tool string) {
	server, tool, ok := strings.Cut(name, "_")
	if !ok || server == "" || tool == "" {
		return "", ""
	}
	return server, tool
}

// SplitMCP splits an mcp__server__tool name into its server and tool.
func SplitMCP(name string) (server, tool string) {
	rest := strings.TrimPrefix(name, "mcp__")
	if i := strings.Index(rest, "__"); i >= 0 {
		return rest[:i], rest[i+2:]
	}
	return rest, ""
}

func (s Shape) fits(v string) bool {
	switch s {
	case UUID:
		return isUUID(v)
	case IDOrUUID:
		return isUUID(v) || isThreadUUID(v) || ID.fits(v)
	case ID:
		if isHexID(v) {
			return true
		}
		for _, p := range openCodePrefixes {
			if strings.HasPrefix(v, p) {
				return openCodeID(v[len(p):])
			}
		}
		for _, p := range idPrefixes {
			if strings.HasPrefix(v, p) && len(v) <= len(p)+96 && len(v) > len(p) && idBody(v[len(p):]) && !strings.Contains(v, ":") {
				return true
			}
		}
		return wordID(v)
	case Time:
		return isTime(v)
	case Version:
		return isVersion(v)
	case Model:
		return len(v) <= 64 && isModel(v)
	case Label:
		return len(v) <= 128 && isWordy(v, false) && !randomLooking(v)
	case Name, ServerToolName:
		return len(v) <= 96 && isWordy(v, true) && !randomLooking(v)
	case EpochMs:
		return isEpochMs(v) || isTime(v)
	case Count:
		return isCount(v, MaxCount)
	case Cumulative:
		return isCount(v, MaxCumulative)
	}
	return false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isThreadUUID reports Amp's thread id, T- and a UUID
// (T-6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f): a UUID by another name.
func isThreadUUID(v string) bool { return strings.HasPrefix(v, "T-") && isUUID(v[2:]) }

func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if v[i] != '-' {
				return false
			}
		default:
			if !isHex(v[i]) {
				return false
			}
		}
	}
	return true
}

// isHexID accepts 6 to 24 lower-case hex digits (Claude Code agent and
// task ids have 7, 8 or 17): 32 are an API key's form (Datadog), 40 a
// token's (GitHub's classic ones).
func isHexID(v string) bool {
	if len(v) < 6 || len(v) > 24 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func idBody(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '_' && c != '-' && c != ':' {
			return false
		}
	}
	return true
}

// wordID accepts a lower-case word, a separator and an id body of at most
// four segments, each a number, a hex id, a lower-case word or an opaque
// token, one of them a number: "agent-5f2e77", "tc-0001", "line:0:2:1",
// "bash-progress-0". A phrase of words ("my-secret-password"), a
// password after words ("mysql-root-hunter2") or a word after a ':'
// ("mysql:root:x7") is not an id.
func wordID(v string) bool {
	i := 0
	for i < len(v) && i < 16 && 'a' <= v[i] && v[i] <= 'z' {
		i++
	}
	if i == 0 || i+1 >= len(v) || len(v) > 96 || (v[i] != '-' && v[i] != '_' && v[i] != ':') {
		return false
	}
	body := v[i+1:]
	segs := strings.FieldsFunc(body, func(r rune) bool { return r == '-' || r == '_' || r == ':' })
	if len(segs) == 0 || len(segs) > 4 || len(segs) != strings.Count(body, "-")+strings.Count(body, "_")+strings.Count(body, ":")+1 {
		return false
	}
	digit := false
	for _, g := range segs {
		switch {
		case digits(g) || len(g) <= 24 && lowerHex(g) && strings.ContainsAny(g, "0123456789"):
			digit = true
		case strings.Contains(v, ":"):
			return false // "line:0:2:1": numbers only after a ':' ("mysql:root:hunter2" is a secret)
		case lowerWord(g):
		case len(g) >= 6 && base62Token(g):
			digit = true
		default:
			return false
		}
	}
	return digit
}

func lowerHex(g string) bool {
	for i := 0; i < len(g); i++ {
		if c := g[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return g != ""
}

// lowerWord is a lower-case word of at most 16 letters.
func lowerWord(g string) bool {
	if len(g) > 16 {
		return false
	}
	for i := 0; i < len(g); i++ {
		if g[i] < 'a' || g[i] > 'z' {
			return false
		}
	}
	return g != ""
}

// base62Token is an opaque token of letters and digits that holds a
// digit and no run of 4 or more lower-case letters between them (a
// generated id's, "01VopHPc9Ycz"; not "hunter2" nor "payroll2026").
func base62Token(g string) bool {
	run, digit := 0, false
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c >= '0' && c <= '9':
			digit, run = true, 0
		case c >= 'a' && c <= 'z':
			if run++; run >= 4 {
				return false
			}
		case c >= 'A' && c <= 'Z':
			run = 0
		default:
			return false
		}
	}
	return digit
}

func digits(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// isTime accepts 2006-01-02T15:04:05[.frac][Z|±hh:mm] (or a space for T).
func isTime(v string) bool {
	if len(v) < 16 || len(v) > 40 {
		return false
	}
	if !digits(v[0:4]) || v[4] != '-' || !digits(v[5:7]) || v[7] != '-' || !digits(v[8:10]) ||
		(v[10] != 'T' && v[10] != ' ') || !digits(v[11:13]) || v[13] != ':' || !digits(v[14:16]) {
		return false
	}
	rest := v[16:]
	if len(rest) >= 3 && rest[0] == ':' && digits(rest[1:3]) {
		rest = rest[3:]
		if len(rest) > 1 && (rest[0] == '.' || rest[0] == ',') {
			i := 1
			for i < len(rest) && i <= 10 && rest[i] >= '0' && rest[i] <= '9' {
				i++
			}
			if i == 1 {
				return false
			}
			rest = rest[i:]
		}
	}
	switch {
	case rest == "" || rest == "Z" || rest == "z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:6]):
		return true
	case len(rest) == 5 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:5]):
		return true
	}
	return false
}

// isVersion accepts a semver-like version: v?N.N(.N){0,2}, the first number
// of at most 4 digits (2.1.39, 2026.1.15), the others of at most 8, with an
// optional -pre or +build suffix of dotted identifiers, each a word of at
// most 16 characters or a number of at most 8 digits (v1.2.3-beta.1,
// 0.142.4+20251101). Not a card number's groups (4111-1111-...: one
// number and a numeric suffix too long), nor an IP address (Personal
// refuses four dotted numbers of 0 to 255, 1.2.3.4 included).
func isVersion(v string) bool {
	if len(v) > 40 {
		return false
	}
	v = strings.TrimPrefix(v, "v")
	core, suffix := v, ""
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		core, suffix = v[:i], v[i+1:]
	}
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 4 {
		return false
	}
	for i, p := range parts {
		if !digits(p) || len(p) > 8 || i == 0 && len(p) > 4 {
			return false
		}
	}
	if suffix == "" {
		return true
	}
	for _, p := range strings.FieldsFunc(suffix, func(r rune) bool { return r == '.' || r == '-' || r == '+' }) {
		if !versionIdent(p) {
			return false
		}
	}
	return true
}

// versionIdent is one identifier of a version's pre-release or build
// suffix, by a grammar with no free word: a number of at most 8 digits, a
// release stage (preReleases) with an optional number (beta, rc1), or a
// commit (7 to 12 lower-case hex digits holding a digit, optionally after
// "g", as git describe writes it).
//
//	1.2.3-beta.1, 0.47.0-alpha.2, 0.5.0-nightly.20250910.a1b2c3d, 1.0.0+20251101   admitted
//	2.1.39-alice.kowalczyk.payroll                                                 refused
func versionIdent(p string) bool {
	if digits(p) {
		return len(p) <= 8
	}
	word := strings.TrimRightFunc(p, func(r rune) bool { return r >= '0' && r <= '9' })
	if preReleases[strings.ToLower(word)] && len(p)-len(word) <= 4 {
		return true
	}
	h := strings.TrimPrefix(p, "g")
	return len(h) >= 7 && len(h) <= 12 && isHexID(h) && strings.ContainsAny(h, "0123456789")
}

// preReleases are the release stages versions name.
var preReleases = map[string]bool{"alpha": true, "beta": true, "rc": true, "pre": true, "preview": true, "dev": true,
	"next": true, "nightly": true, "canary": true, "insiders": true, "snapshot": true, "experimental": true, "stable": true,
	"release": true, "build": true, "a": true, "b": true, "p": true, "patch": true, "hotfix": true, "internal": true}

// isModel accepts lower-case words and numbers joined by - . _ : / @
// ("claude-opus-4-5-20251101", "gpt-5.5", "openai/gpt-oss-120b",
// "<synthetic>"), not random-looking.
func isModel(v string) bool {
	if v == "<synthetic>" {
		return true
	}
	if v == "" || !isAlnum(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == ':' || c == '/' || c == '@':
		case 'A' <= c && c <= 'Z':
		default:
			return false
		}
	}
	return !randomLooking(v)
}

// isWordy accepts letters, digits and _ - . : (and / for names), starting
// with a letter or digit.
func isWordy(v string, name bool) bool {
	if v == "" || !isAlnum(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isAlnum(c), c == '_', c == '-', c == '.', c == ':':
		case name && (c == '/' || c == '@'):
		default:
			return false
		}
	}
	return true
}

// randomLooking reports a run of letters and digits that reads like a
// credential rather than a word: 12 or more characters mixing letters and
// digits (outside a date-like all-digit run), or 24 or more letters.
func randomLooking(v string) bool {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isAlnum(v[i]) {
			continue
		}
		run := v[start:i]
		start = i + 1
		if len(run) < 12 {
			continue
		}
		letters, nums, upper, lower := 0, 0, 0, 0
		for j := 0; j < len(run); j++ {
			switch c := run[j]; {
			case '0' <= c && c <= '9':
				nums++
			case 'A' <= c && c <= 'Z':
				letters++
				upper++
			default:
				letters++
				lower++
			}
		}
		if letters > 0 && nums > 0 {
			return true
		}
		if letters >= 24 || (upper > 0 && lower > 0 && mixedCaseRandom(run)) {
			return true
		}
	}
	return false
}

// mixedCaseRandom: a 12+ letter run whose case flips often (aKdPqZ...) is not
// a camelCase word.
func mixedCaseRandom(run string) bool {
	flips := 0
	for j := 1; j < len(run); j++ {
		a, b := run[j-1] >= 'a', run[j] >= 'a'
		if a != b {
			flips++
		}
	}
	return flips*3 > len(run)
}

func isEpochMs(v string) bool {
	if !digits(v) || len(v) < 12 || len(v) > 13 {
		return false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		n = n*10 + int64(v[i]-'0')
	}
	return n >= 946684800000 && n <= 4102444800000
}

func isCount(v string, max int64) bool {
	if v == "0" {
		return true
	}
	if !digits(v) || v[0] == '0' || len(v) > 13 {
		return false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		n = n*10 + int64(v[i]-'0')
	}
	return n <= max
}
