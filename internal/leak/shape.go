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
	// string or a number.
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
		if isUUID(v) {
			return true // the field's documented form
		}
	case Label:
		if !knownWord(v) {
			return false // a closed vocabulary: only the words the program knows
		}
	}
	return personal(v) == "" && (s == Version || SecretKind(v) == "")
}

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
		return isUUID(v) || ID.fits(v)
	case ID:
		if isHexID(v) {
			return true
		}
		for _, p := range idPrefixes {
			if strings.HasPrefix(v, p) && len(v) <= len(p)+96 && len(v) > len(p) && idBody(v[len(p):]) {
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
		return isEpochMs(v)
	case Count:
		return isCount(v, MaxCount)
	case Cumulative:
		return isCount(v, MaxCumulative)
	}
	return false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

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

// wordID accepts a lower-case word, a separator and an id body that holds a
// digit and at most three more separators: "agent-5f2e77", "tc-0001",
// "line:0:2:1". A phrase of words ("my-secret-password") is not an id.
func wordID(v string) bool {
	i := 0
	for i < len(v) && i < 16 && 'a' <= v[i] && v[i] <= 'z' {
		i++
	}
	if i == 0 || i+1 >= len(v) || len(v) > 96 || (v[i] != '-' && v[i] != '_' && v[i] != ':') {
		return false
	}
	body := v[i+1:]
	seps, digit := 0, false
	for j := 0; j < len(body); j++ {
		switch c := body[j]; {
		case '0' <= c && c <= '9':
			digit = true
		case c == '-' || c == '_' || c == ':':
			seps++
		case isAlnum(c):
		default:
			return false
		}
	}
	return digit && seps <= 3
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
		if !idBody(p) || len(p) > 16 || digits(p) && len(p) > 8 {
			return false
		}
	}
	return !randomLooking(suffix)
}

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
