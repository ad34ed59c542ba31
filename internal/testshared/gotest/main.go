// Command gotest runs go test -json with its arguments and prints what plain
// go test prints (a line per package, the output of failing tests, build
// errors), then every skipped test with its reason: a run on a clone
// without ../shared or a browser says what it left out. Its exit status is
// go test's. make test runs it:
//
//	go run ./internal/testshared/gotest -race -count=1 ./...
//
// The go command is $GO, else go.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	gocmd := os.Getenv("GO")
	if gocmd == "" {
		gocmd = "go"
	}
	cmd := exec.Command(gocmd, append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
	s := newSummary(os.Stdout)
	if err := s.read(stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gotest: reading go test -json:", err)
	}
	s.report()
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 || err != nil {
		if code <= 0 {
			code = 1
		}
		os.Exit(code)
	}
	if s.failed { // go test says fail through its status too; never pass a run that failed
		os.Exit(1)
	}
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output, build-fail
}

type key struct{ pkg, test string }

type skip struct{ pkg, test, reason string }

// summary turns events into plain go test output, keeping each test's
// output until it ends: shown if it failed, its reason kept if it skipped,
// dropped if it passed.
type summary struct {
	w      io.Writer
	tests  map[key][]string
	pkgOut map[string][]string
	skips  []skip
	failed bool
	// passed and failedN count tests (subtests included) by their end.
	passed, failedN int
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, tests: map[key][]string{}, pkgOut: map[string][]string{}}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.w, sc.Text()) // not an event: pass it on
			continue
		}
		s.event(e)
	}
	return sc.Err()
}

func (s *summary) event(e event) {
	k := key{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		io.WriteString(s.w, e.Output)
	case e.Action == "build-fail":
		s.failed = true
	case e.Action == "output" && e.Test != "":
		s.tests[k] = append(s.tests[k], e.Output)
	case e.Action == "output":
		s.pkgOut[e.Package] = append(s.pkgOut[e.Package], e.Output)
	case e.Test != "" && e.Action == "fail":
		s.failed, s.failedN = true, s.failedN+1
		s.print(s.tests[k])
		delete(s.tests, k)
	case e.Test != "" && e.Action == "skip":
		s.skips = append(s.skips, skip{e.Package, e.Test, reason(s.tests[k])})
		delete(s.tests, k)
	case e.Test != "" && e.Action == "pass":
		s.passed++
		delete(s.tests, k)
	case e.Test == "" && (e.Action == "pass" || e.Action == "skip"): // skip: no test files
		for _, l := range s.pkgOut[e.Package] {
			if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
				io.WriteString(s.w, l)
			}
		}
		delete(s.pkgOut, e.Package)
	case e.Test == "" && e.Action == "fail":
		s.failed = true
		var open []key // tests cut short (a panic, a timeout): show what they said
		for t := range s.tests {
			if t.pkg == e.Package {
				open = append(open, t)
			}
		}
		sort.Slice(open, func(i, j int) bool { return open[i].test < open[j].test })
		for _, t := range open {
			s.print(s.tests[t])
			delete(s.tests, t)
		}
		for _, l := range s.pkgOut[e.Package] {
			if l != "PASS\n" && l != "FAIL\n" {
				io.WriteString(s.w, l)
			}
		}
		delete(s.pkgOut, e.Package)
	}
}

// print writes a failed test's output without the -v progress lines.
func (s *summary) print(lines []string) {
	for _, l := range lines {
		if !progress(l) {
			io.WriteString(s.w, l)
		}
	}
}

func progress(l string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// reason is a skipped test's own words on one line.
func reason(lines []string) string {
	var words []string
	for _, l := range lines {
		if progress(l) || strings.HasPrefix(strings.TrimSpace(l), "--- SKIP") {
			continue
		}
		if l = strings.TrimSpace(l); l != "" {
			words = append(words, l)
		}
	}
	if len(words) == 0 {
		return "(no reason given)"
	}
	return strings.Join(words, " ")
}

// report lists the skipped tests, by package and name, then closes with
// one plain line of counts ("tests: N passed, N failed, N skipped").
func (s *summary) report() {
	defer func() {
		fmt.Fprintf(s.w, "tests: %d passed, %d failed, %d skipped\n", s.passed, s.failedN, len(s.skips))
	}()
	if len(s.skips) == 0 {
		return
	}
	sort.Slice(s.skips, func(i, j int) bool {
		a, b := s.skips[i], s.skips[j]
		return a.pkg < b.pkg || a.pkg == b.pkg && a.test < b.test
	})
	fmt.Fprintf(s.w, "\n%d skipped:\n", len(s.skips))
	for _, sk := range s.skips {
		fmt.Fprintf(s.w, "SKIP %s %s: %s\n", sk.pkg, sk.test, sk.reason)
	}
}
