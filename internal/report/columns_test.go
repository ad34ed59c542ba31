package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTableFitsColumns: below the width the full tables need, the
// terminal table leaves out columns least needed first and says which,
// cuts long session ids, and wraps key/value rows and notes, so no line
// is wider than the terminal; with no limit nothing is left out.
func TestTableFitsColumns(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"))
	prices, catalog := Bundled()
	for _, by := range []string{"session", "day", "agent", "model"} {
		r := l.Report(Options{By: by, Prices: prices, Catalog: catalog})
		var full bytes.Buffer
		if err := WriteTableWidth(&full, r, false, 0); err != nil {
			t.Fatal(err)
		}
		widest := 0
		for _, line := range strings.Split(full.String(), "\n") {
			widest = max(widest, utf8.RuneCountInString(line))
		}
		if strings.Contains(full.String(), "left out to fit") || widest <= 100 {
			t.Fatalf("by %s: the full table is %d wide, or leaves columns out", by, widest)
		}
		for _, cols := range []int{80, 100, 120} {
			var b bytes.Buffer
			if err := WriteTableWidth(&b, r, true, cols); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			plain := strings.NewReplacer("\x1b[1m", "", "\x1b[0m", "").Replace(out)
			for _, line := range strings.Split(plain, "\n") {
				if n := utf8.RuneCountInString(line); n > cols {
					t.Errorf("by %s, %d columns: a line of %d: %q", by, cols, n, line)
				}
			}
			if !strings.Contains(plain, "left out to fit") {
				t.Errorf("by %s, %d columns: no note of the columns left out", by, cols)
			}
			// What is left is the full table's figures: input, output and
			// cost stay, as does every model.
			for _, m := range r.Total.Tokens {
				if !strings.Contains(plain, m.Model) || !strings.Contains(plain, num(m.Output)) {
					t.Errorf("by %s, %d columns: %s or its output %s missing", by, cols, m.Model, num(m.Output))
				}
			}
			if !strings.Contains(plain, "cost (USD)") {
				t.Errorf("by %s, %d columns: the cost column was left out", by, cols)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"a bb ccc dddd", 6, "a bb|ccc|dddd"},
		{"a bb ccc dddd", 0, "a bb ccc dddd"},
		{"averyverylongword x", 5, "averyverylongword|x"},
		{"short", 80, "short"},
	} {
		if got := strings.Join(wrap(tc.s, tc.n), "|"); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestSessionsByLastActivity: sessions (JSON, HTML, --by session rows)
// come in the order of their last event, the most recent last, not of
// their start; --session keeps those whose id starts with a prefix.
func TestSessionsByLastActivity(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"))
	r := l.Report(Options{By: "session"})
	startOrder := true
	for i := 1; i < len(r.Sessions); i++ {
		a, b := r.Sessions[i-1], r.Sessions[i]
		if a.End > b.End && b.End != "" {
			t.Errorf("session %s (last %s) before %s (last %s)", a.ID, a.End, b.ID, b.End)
		}
		if a.Start > b.Start {
			startOrder = false
		}
	}
	if startOrder {
		t.Error("the samples' sessions end in the order they start: the test shows nothing")
	}
	for i, g := range r.Groups {
		if g.Key != r.Sessions[i].ID {
			t.Fatalf("--by session row %d is %s, the sessions' %s", i, g.Key, r.Sessions[i].ID)
		}
	}
	id := r.Sessions[len(r.Sessions)-1].ID
	one := l.Report(Options{Sessions: []string{id[:8]}})
	if len(one.Sessions) != 1 || one.Sessions[0].ID != id || one.Sources.NotSelected != len(r.Sessions)-1 {
		t.Errorf("--session %s: %d sessions, %d not selected", id[:8], len(one.Sessions), one.Sources.NotSelected)
	}
	if none := l.Report(Options{Sessions: []string{"CANARY-no-such"}}); len(none.Sessions) != 0 || none.Sources.NotSelected != len(r.Sessions) {
		t.Errorf("a prefix no id has selected %d sessions", len(none.Sessions))
	}
}
