package fuzzgen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var generators = map[string]func([]byte) *Log{"claude_code": ClaudeCode, "codex": Codex, "cursor": Cursor}

// The same choices give the same log, and every log is made of files whose
// lines are JSON objects or the damage encode adds on purpose.
func TestGeneratorsDeterministic(t *testing.T) {
	streams := [][]byte{nil, {0}, {1, 2, 3}, bytes.Repeat([]byte{0xff, 0x10, 0x7f, 0x01}, 40), []byte("an arbitrary stream of choices, long enough for subagents")}
	for name, gen := range generators {
		for i, s := range streams {
			a, b := gen(s), gen(append([]byte(nil), s...))
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s stream %d: two logs from the same choices differ", name, i)
			}
			if a.Format != name || a.Files[a.Main] == nil {
				t.Errorf("%s stream %d: format %q, main file %q missing", name, i, a.Format, a.Main)
			}
			for _, c := range a.Companions {
				if _, ok := a.Files[c.Path]; !ok || !strings.HasSuffix(c.Path, c.Rel) {
					t.Errorf("%s stream %d: companion %+v has no file or a rel that is not its path's end", name, i, c)
				}
			}
		}
	}
}

// An exhausted stream chooses the plainest log: every line parses, and
// canaries sit in its raw slots.
func TestExhaustedStreamIsPlain(t *testing.T) {
	for name, gen := range generators {
		l := gen(nil)
		for _, line := range bytes.Split(bytes.TrimSuffix(l.Files[l.Main], []byte{'\n'}), []byte{'\n'}) {
			var v map[string]any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Errorf("%s: %v in %s", name, err, line)
			}
		}
		if len(l.Canaries) == 0 {
			t.Errorf("%s: no canary planted", name)
		}
		written := false
		for _, c := range l.Canaries {
			written = written || bytes.Contains(l.Files[l.Main], []byte(c))
		}
		if !written {
			t.Errorf("%s: no canary in the main file", name)
		}
	}
}

func TestChoices(t *testing.T) {
	c := NewChoices([]byte{5, 0xff, 0x01})
	if got := c.Intn(3); got != 2 {
		t.Errorf("Intn(3) of 5 = %d, want 2", got)
	}
	if got := c.Intn(1000); got != (0xff<<8|0x01)%1000 {
		t.Errorf("Intn(1000) reads two bytes: got %d", got)
	}
	if c.Left() || c.Byte() != 0 || c.OneIn(2) {
		t.Error("an exhausted stream must choose 0 and never the rare option")
	}
}
