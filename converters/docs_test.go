package converters_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The front door stays small: the issue that moved the manual to docs/ set
// these limits (about 150 lines, under 14 KB).
const (
	readmeMaxBytes = 14 << 10
	readmeMaxLines = 160
)

// TestDocLinks: every relative link in README.md and docs/*.md names a file
// that exists, and a link into a Markdown file's #anchor names one of its
// headings (GitHub's anchors). Links inside code are not links.
func TestDocLinks(t *testing.T) {
	root := ".."
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	anchors := map[string]map[string]bool{}
	read := func(path string) (string, error) {
		b, err := os.ReadFile(path)
		return string(b), err
	}
	links := 0
	for _, f := range files {
		text, err := read(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range brokenLinks(f, text, anchors, read, &links) {
			t.Error(p)
		}
	}
	t.Logf("%d relative links checked in %d files", links, len(files))
	if links < 50 {
		t.Errorf("only %d relative links found in %d files: is the link pattern still right?", links, len(files))
	}
}

// TestDocLinksFindBreakage: the check above fails on a missing file, a
// missing anchor in another file and in the same file, and ignores links
// shown as code.
func TestDocLinksFindBreakage(t *testing.T) {
	dir := t.TempDir()
	other := "# Other\n\n## `convert run`: logs in\n\n## Twice\n\n## Twice\n"
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := strings.Join([]string{
		"# Doc",
		"[ok](other.md) [ok](other.md#convert-run-logs-in) [ok](other.md#twice-1) [ok](#doc) [web](https://example.com/x.md)",
		"[gone](missing.md) [bad anchor](other.md#convert-run) [bad self](#nowhere)",
		"`[code](missing-in-code.md)`",
		"```",
		"[fenced](missing-in-fence.md)",
		"```",
	}, "\n")
	read := func(path string) (string, error) {
		b, err := os.ReadFile(path)
		return string(b), err
	}
	var n int
	got := brokenLinks(filepath.Join(dir, "doc.md"), doc, map[string]map[string]bool{filepath.Join(dir, "doc.md"): headingAnchors(doc)}, read, &n)
	want := []string{"missing.md", "other.md#convert-run", "#nowhere"}
	if len(got) != len(want) {
		t.Fatalf("found %d broken links, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], "("+w+")") {
			t.Errorf("finding %d is %q, want one about %s", i, got[i], w)
		}
	}
	if n != 7 {
		t.Errorf("counted %d relative links, want 7", n)
	}
}

// TestReadmeIsAFrontDoor: README.md keeps to the size the docs move gave it;
// the manual is under docs/.
func TestReadmeIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= readmeMaxBytes {
		t.Errorf("README.md is %d bytes, the limit %d: move the detail into docs/ and link to it", len(b), readmeMaxBytes)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md is %d lines, the limit %d: move the detail into docs/ and link to it", n, readmeMaxLines)
	}
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// brokenLinks returns one message per relative link of file (its text
// given) that does not resolve; n counts the relative links seen. anchors
// caches each Markdown file's heading anchors by path.
func brokenLinks(file, text string, anchors map[string]map[string]bool, read func(string) (string, error), n *int) []string {
	var out []string
	fence := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			*n++
			where := fmt.Sprintf("%s:%d: (%s)", file, i+1, target)
			path, anchor, _ := strings.Cut(target, "#")
			full := file
			if path != "" {
				full = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(full); err != nil {
					out = append(out, where+" names no file")
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(full, ".md") {
				out = append(out, where+" has an anchor into a file that is not Markdown")
				continue
			}
			set, ok := anchors[full]
			if !ok {
				text, err := read(full)
				if err != nil {
					out = append(out, where+": "+err.Error())
					continue
				}
				set = headingAnchors(text)
				anchors[full] = set
			}
			if !set[anchor] {
				out = append(out, where+" names no heading there")
			}
		}
	}
	return out
}

// headingAnchors lists the anchors GitHub gives a Markdown file's headings:
// the heading's text lower-cased, without inline-code backticks and
// punctuation other than '-' and '_', spaces made '-', and "-1", "-2", ...
// added to repeats.
func headingAnchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			seen[a] = k + 1
			a = fmt.Sprintf("%s-%d", a, k)
		} else {
			seen[a] = 1
		}
		set[a] = true
	}
	return set
}
