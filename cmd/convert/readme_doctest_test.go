package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// runnableMarker on the line right before a README fence makes the block a
// doc test: TestReadmeExamples runs each of its commands and requires exit
// 0 and every path the command names to exist afterwards. Paths the block
// only describes can be listed after "makes:" in the marker
// (<!-- runnable; makes: out/first/codex -->). docs/testing.md says so.
const runnableMarker = "<!-- runnable"

// docBlock is one runnable fenced block of a Markdown file.
type docBlock struct {
	line     int      // of the opening fence, 1-based
	commands []string // one shell command each, continuation lines joined
	makes    []string // paths the marker says the block makes
}

// runnableBlocks finds the runnable blocks of a Markdown document. A marker
// not followed by a fence is an error, so a marker cannot silently stop
// working.
func runnableBlocks(doc []byte) ([]docBlock, error) {
	var blocks []docBlock
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, runnableMarker) {
			continue
		}
		if !strings.HasSuffix(l, "-->") {
			return nil, fmt.Errorf("line %d: the marker does not end on its line with -->", i+1)
		}
		if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "```sh") {
			return nil, fmt.Errorf("line %d: a runnable marker must be right before a ```sh fence", i+1)
		}
		b := docBlock{line: i + 2}
		if _, after, ok := strings.Cut(strings.TrimSuffix(l, "-->"), "makes:"); ok {
			b.makes = strings.Fields(after)
		}
		cur := ""
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			s := strings.TrimRight(lines[i], " \t")
			if strings.HasSuffix(s, "\\") {
				cur += strings.TrimSuffix(s, "\\") + " "
				continue
			}
			cur += s
			if c := strings.TrimSpace(cur); c != "" && !strings.HasPrefix(c, "#") {
				b.commands = append(b.commands, c)
			}
			cur = ""
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("line %d: the block never closes", b.line)
		}
		if len(b.commands) == 0 {
			return nil, fmt.Errorf("line %d: a runnable block without a command", b.line)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// stripComment drops a shell comment: a # at the start of a word, outside
// quotes.
func stripComment(cmd string) string {
	quote := byte(0)
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || cmd[i-1] == ' ' || cmd[i-1] == '\t'):
			return strings.TrimSpace(cmd[:i])
		}
	}
	return strings.TrimSpace(cmd)
}

// namedPaths are the words of a command that name a file or folder: not a
// flag or a flag's keyword value, with a slash or a file extension.
func namedPaths(cmd, home string) []string {
	var out []string
	for _, w := range strings.Fields(stripComment(cmd)) {
		w = strings.Trim(w, `"'`)
		switch {
		case strings.HasPrefix(w, "-"), strings.Contains(w, "://"), strings.ContainsAny(w, "$=|<>;&*"):
			continue
		case strings.HasPrefix(w, "~/"):
			out = append(out, filepath.Join(home, w[2:]))
		case strings.Contains(w, "/") || filepath.Ext(w) != "":
			out = append(out, w)
		}
	}
	return out
}

// runBlocks runs blocks in order in dir, where bin/convert is the command
// under test and home is $HOME, and returns what went wrong, each naming
// the README line.
func runBlocks(blocks []docBlock, dir, home string, timeout time.Duration) []string {
	var problems []string
	for _, b := range blocks {
		for _, c := range b.commands {
			cmd := exec.Command("sh", "-c", c)
			cmd.Dir = dir
			cmd.Env = docEnv(home)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				problems = append(problems, fmt.Sprintf("README.md:%d: %s: %v", b.line, c, err))
				continue
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(timeout):
				cmd.Process.Kill()
				err = <-done
				problems = append(problems, fmt.Sprintf("README.md:%d: %s: still running after %s", b.line, c, timeout))
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("README.md:%d: %s: %v\n%s", b.line, c, err, out.String()))
			}
			if bytes.Contains(out.Bytes(), []byte("CANARY")) {
				problems = append(problems, fmt.Sprintf("README.md:%d: %s: a sample's canary reached its output", b.line, c))
			}
			for _, p := range namedPaths(c, home) {
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				if _, err := os.Stat(p); err != nil {
					problems = append(problems, fmt.Sprintf("README.md:%d: %s: names %s, which is not there afterwards", b.line, c, p))
				}
			}
		}
		for _, p := range b.makes {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				problems = append(problems, fmt.Sprintf("README.md:%d: the block says it makes %s, which is not there", b.line, p))
			}
		}
	}
	return problems
}

// docEnv is a plain environment for the examples: PATH, a HOME of their
// own (so ~ and the configuration folder are the test's), nothing of the
// caller's convert or OpenTelemetry settings.
func docEnv(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TZ=UTC"}
	if runtime.GOOS == "windows" {
		env = append(env, "USERPROFILE="+home, "SystemRoot="+os.Getenv("SystemRoot"))
	}
	return env
}

// TestReadmeExamples builds convert into a temporary folder as bin/convert,
// copies the checkout's samples beside it, and runs the README's runnable
// blocks there, in order, as a reader pasting them would: each command
// must exit 0, leave every path it names in place and print no sample's
// canary; nothing it writes may hold one either.
func TestReadmeExamples(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the README's examples are POSIX shell")
	}
	doc, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := runnableBlocks(doc)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if len(blocks) < 3 {
		t.Fatalf("README.md has %d runnable blocks: were the markers removed?", len(blocks))
	}
	dir, home := t.TempDir(), t.TempDir()
	start := time.Now()
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", filepath.Join(dir, "bin", "convert"), ".") // no symbol tables: links in a fraction of the time
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built bin/convert in %s", time.Since(start).Round(time.Millisecond))
	if err := os.CopyFS(filepath.Join(dir, "samples"), os.DirFS("../../samples")); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for _, p := range runBlocks(blocks, dir, home, time.Minute) {
		t.Error(p)
	}
	n := 0
	for _, b := range blocks {
		n += len(b.commands)
	}
	t.Logf("%d commands in %d blocks ran in %s", n, len(blocks), time.Since(start).Round(time.Millisecond))
	for _, root := range []string{dir, home} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(p, filepath.Join(dir, "samples")+string(filepath.Separator)) || strings.HasPrefix(p, filepath.Join(dir, "bin")) {
				return err
			}
			if strings.Contains(p, "CANARY") {
				t.Errorf("an output is named with a canary: %s", p)
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if bytes.Contains(sc.Bytes(), []byte("CANARY")) {
					t.Errorf("%s holds a sample's canary", p)
					break
				}
			}
			return nil
		})
	}
}

// TestReadmeExamplesCanFail holds the doc test's runner to what it must
// catch: a failing command, a path named but not made, a path the marker
// promises, a marker without a block, and a canary on the output.
func TestReadmeExamplesCanFail(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell")
	}
	doc := "intro\n<!-- runnable; makes: made missing -->\n```sh\n" +
		"mkdir made # a comment naming gone/not/there\n" +
		"touch a.txt \\\n  b.txt\n" +
		"false\n" +
		"echo CANARY-x\n" +
		"true out/never/made     # exit 0, but names a path it does not make\n" +
		"```\n"
	blocks, err := runnableBlocks([]byte(doc))
	if err != nil || len(blocks) != 1 || len(blocks[0].commands) != 5 {
		t.Fatalf("blocks %+v, %v", blocks, err)
	}
	problems := strings.Join(runBlocks(blocks, t.TempDir(), t.TempDir(), 10*time.Second), "\n")
	for _, want := range []string{
		"README.md:3: false: exit status 1",
		"README.md:3: echo CANARY-x: a sample's canary reached its output",
		"out/never/made, which is not there afterwards",
		"the block says it makes missing, which is not there",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("the runner missed %q:\n%s", want, problems)
		}
	}
	for _, wrong := range []string{"gone/not/there", "a.txt", "b.txt", "makes made,"} {
		if strings.Contains(problems, wrong) {
			t.Errorf("the runner reports %q, which is fine:\n%s", wrong, problems)
		}
	}
	for _, bad := range []string{"<!-- runnable -->\ntext\n", "<!-- runnable -->\n```sh\n```\n", "<!-- runnable -->\n```sh\nls\n"} {
		if _, err := runnableBlocks([]byte(bad)); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}
