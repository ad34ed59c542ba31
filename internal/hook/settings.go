package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Claude Code reads hooks from settings.json:
//
//	{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// (event -> matcher groups -> handlers; a matcher only matters for tool
// events). MergeClaude adds convert's handler to each event, keeping every
// other key, group and handler as it was, in its order.

// HookTimeout is the timeout written for convert's handler, in seconds:
// the hook itself returns within its budget (2 s by default).
const HookTimeout = 30

// member is one key of a JSON object, its value kept as written.
type member struct {
	Key string
	Val json.RawMessage
}

// parseObject reads a JSON object keeping its keys in order.
func parseObject(b []byte) ([]member, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		ms = append(ms, member{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return ms, nil
}

func encodeObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func get(ms []member, k string) (json.RawMessage, int) {
	for i, m := range ms {
		if m.Key == k {
			return m.Val, i
		}
	}
	return nil, -1
}

func set(ms []member, k string, v json.RawMessage) []member {
	if _, i := get(ms, k); i >= 0 {
		ms[i].Val = v
		return ms
	}
	return append(ms, member{k, v})
}

func del(ms []member, k string) []member {
	if _, i := get(ms, k); i >= 0 {
		return append(ms[:i:i], ms[i+1:]...)
	}
	return ms
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// ClaudeSnippet is the settings fragment that runs command on events.
func ClaudeSnippet(command string, events []string) []byte {
	out, _, _ := MergeClaude(nil, command, events)
	return out
}

// IsConvertCommand tells convert's hook handler (for agent) from any
// other: a command whose program is convert (any path) and whose last
// words are "hook AGENT".
func IsConvertCommand(command, agent string) bool {
	prog, ok := strings.CutSuffix(strings.TrimSpace(command), " hook "+agent)
	if !ok {
		return false
	}
	prog = strings.Trim(strings.TrimSpace(prog), `'"`)
	return strings.HasPrefix(filepath.Base(prog), "convert")
}

// MergeClaude adds a command handler running command to each event of a
// Claude Code settings file (its bytes; nil for none). An event that has a
// convert handler already keeps it. changed is false when nothing was
// added; the output is indented JSON either way.
func MergeClaude(settings []byte, command string, events []string) (out []byte, changed bool, err error) {
	top, err := parseObject(settings)
	if err != nil {
		return nil, false, fmt.Errorf("the settings file is not a JSON object: %v", err)
	}
	hooksRaw, _ := get(top, "hooks")
	if strings.TrimSpace(string(hooksRaw)) == "null" {
		hooksRaw = nil
	}
	hooks, err := parseObject(hooksRaw)
	if err != nil {
		return nil, false, errors.New(`the settings' "hooks" is not a JSON object`)
	}
	for _, ev := range events {
		evRaw, _ := get(hooks, ev)
		var groups []json.RawMessage
		if evRaw != nil {
			if err := json.Unmarshal(evRaw, &groups); err != nil {
				return nil, false, fmt.Errorf(`the settings' hooks.%s is not a list of matcher groups`, ev)
			}
		}
		if hasConvert(groups, "claude-code") {
			continue
		}
		h, _ := json.Marshal(handler{Type: "command", Command: command, Timeout: HookTimeout})
		groups = append(groups, encodeObject([]member{{"hooks", json.RawMessage("[" + string(h) + "]")}}))
		g, _ := json.Marshal(groups)
		hooks = set(hooks, ev, g)
		changed = true
	}
	if changed || hooksRaw != nil {
		top = set(top, "hooks", encodeObject(hooks))
	}
	return indent(encodeObject(top)), changed, nil
}

// RemoveClaude takes every convert handler out of a settings file, then
// the groups and events it leaves empty.
func RemoveClaude(settings []byte) (out []byte, changed bool, err error) {
	top, err := parseObject(settings)
	if err != nil {
		return nil, false, fmt.Errorf("the settings file is not a JSON object: %v", err)
	}
	hooksRaw, _ := get(top, "hooks")
	if hooksRaw == nil {
		return indent(encodeObject(top)), false, nil
	}
	hooks, err := parseObject(hooksRaw)
	if err != nil {
		return nil, false, errors.New(`the settings' "hooks" is not a JSON object`)
	}
	var kept []member
	for _, ev := range hooks {
		var groups []json.RawMessage
		if json.Unmarshal(ev.Val, &groups) != nil {
			kept = append(kept, ev)
			continue
		}
		var keptGroups []json.RawMessage
		for _, g := range groups {
			gm, err := parseObject(g)
			hr, _ := get(gm, "hooks")
			var hs []json.RawMessage
			if err != nil || json.Unmarshal(hr, &hs) != nil {
				keptGroups = append(keptGroups, g)
				continue
			}
			var keptHs []json.RawMessage
			for _, h := range hs {
				var hh handler
				if json.Unmarshal(h, &hh) == nil && hh.Type == "command" && IsConvertCommand(hh.Command, "claude-code") {
					changed = true
					continue
				}
				keptHs = append(keptHs, h)
			}
			if len(keptHs) == 0 {
				continue
			}
			b, _ := json.Marshal(keptHs)
			keptGroups = append(keptGroups, encodeObject(set(gm, "hooks", b)))
		}
		if len(keptGroups) == 0 {
			continue
		}
		b, _ := json.Marshal(keptGroups)
		kept = append(kept, member{ev.Key, b})
	}
	if !changed {
		return indent(encodeObject(top)), false, nil
	}
	if len(kept) == 0 {
		top = del(top, "hooks")
	} else {
		top = set(top, "hooks", encodeObject(kept))
	}
	return indent(encodeObject(top)), true, nil
}

func hasConvert(groups []json.RawMessage, agent string) bool {
	for _, g := range groups {
		var gg struct {
			Hooks []handler `json:"hooks"`
		}
		if json.Unmarshal(g, &gg) != nil {
			continue
		}
		for _, h := range gg.Hooks {
			if h.Type == "command" && IsConvertCommand(h.Command, agent) {
				return true
			}
		}
	}
	return false
}

func indent(b []byte) []byte {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return b
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// Codex runs one notify program, set at the top level of config.toml:
//
//	notify = ["convert", "hook", "codex"]
//
// MergeCodex and RemoveCodex edit that one key as lines, leaving the rest
// of the file byte for byte.

var (
	notifyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*notify\s*=`) })
	tableRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })
)

// CodexMarker is the comment written above convert's notify line.
const CodexMarker = "# convert hook: a receipt of each Codex turn (convert hook uninstall codex removes it)"

// CodexNotify is the notify line running argv.
func CodexNotify(argv []string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // JSON strings are TOML basic strings
	enc.SetEscapeHTML(false)
	_ = enc.Encode(argv)
	return "notify = " + strings.TrimSpace(b.String())
}

// ErrOtherNotify is returned when config.toml runs another notify program:
// Codex runs only one, so convert does not replace it.
var ErrOtherNotify = errors.New("config.toml already sets notify to another program; Codex runs only one: remove it first, or call convert hook codex from that program with the same last argument")

// topNotify finds the top-level notify key: its first and last line
// (-1 when none).
func topNotify(lines []string) (first, last int) {
	for i := 0; i < len(lines); i++ {
		if tableRe().MatchString(lines[i]) {
			break
		}
		if !notifyRe().MatchString(lines[i]) {
			continue
		}
		depth := 0
		for j := i; j < len(lines); j++ {
			depth += strings.Count(stripTOMLStrings(lines[j]), "[") - strings.Count(stripTOMLStrings(lines[j]), "]")
			if depth <= 0 {
				return i, j
			}
		}
		return i, len(lines) - 1
	}
	return -1, -1
}

var tomlStringRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(\\.|[^"\\])*"|'[^']*'|#.*$`) })

func stripTOMLStrings(s string) string { return tomlStringRe().ReplaceAllString(s, "") }

// MergeCodex sets notify to argv in a config.toml (its bytes; nil for
// none), unless it is set already: to convert (unchanged) or to another
// program (ErrOtherNotify).
func MergeCodex(config []byte, argv []string) (out []byte, changed bool, err error) {
	lines := strings.Split(string(config), "\n")
	if first, last := topNotify(lines); first >= 0 {
		if isConvertNotify(strings.Join(lines[first:last+1], " ")) {
			return config, false, nil
		}
		return nil, false, ErrOtherNotify
	}
	add := []string{CodexMarker, CodexNotify(argv)}
	at := len(lines)
	for i, l := range lines {
		if tableRe().MatchString(l) {
			at = i
			break
		}
	}
	if at == len(lines) && len(lines) > 0 && lines[len(lines)-1] == "" {
		at-- // before the final newline
	}
	lines = append(lines[:at:at], append(add, lines[at:]...)...)
	s := strings.Join(lines, "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s), true, nil
}

// RemoveCodex takes convert's notify line (and its marker) out.
func RemoveCodex(config []byte) (out []byte, changed bool) {
	lines := strings.Split(string(config), "\n")
	first, last := topNotify(lines)
	if first < 0 || !isConvertNotify(strings.Join(lines[first:last+1], " ")) {
		return config, false
	}
	if first > 0 && lines[first-1] == CodexMarker {
		first--
	}
	lines = append(lines[:first:first], lines[last+1:]...)
	return []byte(strings.Join(lines, "\n")), true
}

// isConvertNotify: the notify value's program is convert and its
// arguments end in "hook codex".
func isConvertNotify(kv string) bool {
	_, v, _ := strings.Cut(kv, "=")
	v = strings.TrimSpace(stripComment(v))
	var argv []string
	if json.Unmarshal([]byte(strings.ReplaceAll(v, "'", `"`)), &argv) != nil || len(argv) < 3 {
		return false
	}
	return strings.HasPrefix(filepath.Base(argv[0]), "convert") && argv[len(argv)-2] == "hook" && argv[len(argv)-1] == "codex"
}

func stripComment(v string) string {
	if i := strings.LastIndex(v, "]"); i >= 0 {
		return v[:i+1]
	}
	return v
}

// WriteFile replaces path with data: the old file is kept as a backup of
// its own, path.bak-<UTC time> (with -2, -3, ... when that exists: a backup
// is never overwritten, so a second write keeps the original settings),
// the new one is written to a temporary file beside it and renamed into
// place, with the old file's mode (0600 for a new one).
func WriteFile(path string, data []byte) (backup string, err error) {
	return writeFileAt(path, data, time.Now())
}

func writeFileAt(path string, data []byte, now time.Time) (backup string, err error) {
	mode := os.FileMode(0o600)
	if old, err := os.ReadFile(path); err == nil {
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if backup, err = writeBackup(path+".bak-"+now.UTC().Format("20060102T150405Z"), old, mode); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return backup, os.Rename(tmp.Name(), path)
}

// writeBackup writes data to name, or to name-2, name-3, ... when name
// exists: never over an earlier backup.
func writeBackup(name string, data []byte, mode os.FileMode) (string, error) {
	for i := 1; ; i++ {
		p := name
		if i > 1 {
			p = name + "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return p, f.Close()
	}
}
