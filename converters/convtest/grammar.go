package convtest

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// Grammar keeps a reader's fuzz grammar (the gen of its FuzzLogs) honest:
//
//   - the same choices give the same log, of the reader's format, whose
//     companions are files of it;
//
//   - an exhausted stream gives the plainest log: every line of its main
//     file parses, and a canary sits in it;
//
//   - from random choice streams, at least half the logs convert (a grammar
//     whose logs all fail explores nothing), and every one holds the fuzz
//     properties (Check).
//
//     func TestGrammar(t *testing.T) { convtest.Grammar(t, "codex", grammar) }
func Grammar(t *testing.T, format string, gen func([]byte) *fuzzgen.Log) {
	t.Helper()
	streams := [][]byte{nil, {0}, {1, 2, 3}, bytes.Repeat([]byte{0xff, 0x10, 0x7f, 0x01}, 40), []byte("an arbitrary stream of choices, long enough for subagents")}
	for i, s := range streams {
		a, b := gen(s), gen(append([]byte(nil), s...))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("stream %d: two logs from the same choices differ", i)
		}
		if a.Format != format || a.Files[a.Main] == nil {
			t.Errorf("stream %d: format %q, main file %q missing", i, a.Format, a.Main)
		}
		for _, c := range a.Companions {
			if _, ok := a.Files[c.Path]; !ok || !strings.HasSuffix(c.Path, c.Rel) {
				t.Errorf("stream %d: companion %+v has no file or a rel that is not its path's end", i, c)
			}
		}
	}
	plain := gen(nil)
	for _, line := range bytes.Split(bytes.TrimSuffix(plain.Files[plain.Main], []byte{'\n'}), []byte{'\n'}) {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Errorf("exhausted stream: %v in %s", err, line)
		}
	}
	written := false
	for _, c := range plain.Canaries {
		written = written || bytes.Contains(plain.Files[plain.Main], []byte(c))
	}
	if !written {
		t.Error("exhausted stream: no canary in the main file")
	}
	// A hunt (hunt.go): 20 streams of 8 to 63 bytes in make test;
	// CONVERT_HUNT streams of up to 620 in a hunt (longer logs: subagents,
	// compactions); a stream that fails is kept as a FuzzLogs input.
	rng, n, most := huntSource(t, 22), huntRounds(t, 20), 56
	if os.Getenv("CONVERT_HUNT") != "" {
		most = 600
	}
	var cur []byte
	defer func() {
		if t.Failed() && cur != nil {
			keepFinding(t, "FuzzLogs", cur)
		}
	}()
	ok := 0
	for range n {
		b := make([]byte, 8+rng.Intn(most))
		rng.Read(b)
		b[0] &^= 0x80 // the converter named: the logs are its
		cur = b
		c := LogCase(gen(b[1:]), false)
		if c.Convert(false).Err == nil {
			ok++
		}
		Check(t, c, b)
	}
	cur = nil
	if ok < n/2 {
		t.Errorf("%d of %d generated logs convert, want at least %d", ok, n, n/2)
	}
}
