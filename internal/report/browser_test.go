package report

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/internal/testshared"
)

// browsers are the executables chromium looks for on PATH, in order.
var browsers = []string{"chromium", "chromium-browser", "google-chrome"}

// chromium finds a Chromium. Without one the test skips, saying what is
// missing and how to install it; in CI (CI set) it fails instead.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testshared.Unavailable(t, "headless browser test: no "+strings.Join(browsers, ", ")+" on PATH; install one (Debian/Ubuntu: apt-get install -y chromium)")
	return ""
}

// headless runs Chromium as root would need it, offline, with a fresh profile.
func headless(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,1600"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return stdout.String()
}

// TestBrowser opens the HTML report of the bundled Claude Code and Codex
// samples from disk in headless Chromium, with JavaScript off and on, and
// checks the DOM for the numbers; it keeps a screenshot (in
// $CONVERT_TEST_ARTIFACTS, else a temporary folder; -update writes the
// README's docs/report.png: make report-png).
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	l, _ := load(t, LoadOptions{Traces: true}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"))
	prices, catalog := Bundled()
	r := l.Report(Options{Prices: prices, Catalog: catalog})
	if err := AddTimelines(r, -1); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, []byte(render(t, r, "html")), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	// --dump-dom prints nothing with scripts off: the DevTools protocol
	// (over --remote-debugging-pipe) reads the DOM of the page as loaded
	// with script execution disabled.
	noJS, noJSShot := devtoolsDOM(t, bin, url)
	withJS := headless(t, bin, "--dump-dom", url)
	row := func(dom, model string) string { // the cells of the model's row in the tokens table
		m := regexp.MustCompile(`<tr><td>` + regexp.QuoteMeta(model) + `</td>((?:<td class="num">[^<]*</td>)+)</tr>`).FindStringSubmatch(dom)
		if m == nil {
			return ""
		}
		return regexp.MustCompile(`<[^>]+>`).ReplaceAllString(strings.ReplaceAll(m[1], "</td>", " "), "")
	}
	for name, dom := range map[string]string{"javascript off": noJS, "javascript on": withJS} {
		for model, want := range map[string]string{
			"claude-opus-4-7":          "1 49 3,011 174,100 29,560 206,720 0 0.45 ", // 27,860 of the cache writes at the 1-hour price
			"claude-sonnet-4-20250514": "1 6,200 155 300 300 6,955 0 0.02 ",
			"gpt-5.5":                  "1 2,000 800 25,000 3,000 30,800 500 0.06 ", // reasoning, apart from the total, then the cost
		} {
			if got := row(dom, model); got != want {
				t.Errorf("%s: %s row %q, want %q", name, model, got, want)
			}
		}
		// Every figure the page shows is the JSON document's.
		if bad := htmlMatchesJSON(dom, []byte(render(t, r, "json"))); len(bad) > 0 {
			t.Errorf("%s: the page's figures differ from the JSON's (%d): %s", name, len(bad), strings.Join(bad[:min(5, len(bad))], "; "))
		}
		if n := strings.Count(dom, `<figure id="chart-`); n != 3 {
			t.Errorf("%s: %d charts", name, n)
		}
		if n := strings.Count(dom, `<rect `); n < 20 {
			t.Errorf("%s: %d SVG bars: the charts and waterfalls did not render", name, n)
		}
		sessions := regexp.MustCompile(`(?s)<table id="sessions"[^>]*>.*?</table>`).FindString(dom)
		if n := strings.Count(sessions, "<tr>") - 1; n != len(l.Sessions) {
			t.Errorf("%s: %d session rows, want %d", name, n, len(l.Sessions))
		}
		if n := strings.Count(dom, `class="marker `); n < 10 {
			t.Errorf("%s: %d context-event markers on the timelines", name, n)
		}
		if strings.Contains(strings.ToUpper(dom), "CANARY") {
			t.Errorf("%s: the page carries a canary", name)
		}
	}
	if strings.Contains(noJS, `id="session-filter"`) || !strings.Contains(withJS, `id="session-filter"`) {
		t.Error("the filter box must come from JavaScript only")
	}

	dir := os.Getenv("CONVERT_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "convert-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	headless(t, bin, "--hide-scrollbars", "--screenshot="+shot, url)
	if err := os.WriteFile(filepath.Join(dir, "report-nojs.png"), noJSShot, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Fatalf("no screenshot at %s", shot)
	}
	t.Logf("screenshot: %s", shot)
	if *update {
		small := filepath.Join("..", "..", "docs", "report.png")
		if err := os.MkdirAll(filepath.Dir(small), 0o755); err != nil {
			t.Fatal(err)
		}
		// Tall enough for the charts, the overview and the first rows of
		// the groups table with its cost column; small enough for a README.
		headless(t, bin, "--hide-scrollbars", "--window-size=1100,1750", "--screenshot="+small, url)
		if st, err := os.Stat(small); err != nil || st.Size() > 200<<10 {
			t.Errorf("%s: %v; want a picture under 200 KiB", small, err)
		}
	}
}

// devtoolsDOM loads url in a headless Chromium with JavaScript disabled,
// through the DevTools protocol on a pipe (fds 3 and 4, NUL-framed JSON),
// and returns the page's HTML and a PNG screenshot.
func devtoolsDOM(t *testing.T, bin, url string) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	toChrome, cmdIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmdOut, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,1600", "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	defer func() { cmdIn.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	rd := bufio.NewReader(cmdOut)
	id := 0
	type msg struct {
		ID     int             `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	// call sends one command and waits for its answer; until is an event
	// to wait for afterwards ("" for none).
	call := func(session, method string, params any, until string) json.RawMessage {
		id++
		req := map[string]any{"id": id, "method": method, "params": params}
		if session != "" {
			req["sessionId"] = session
		}
		b, _ := json.Marshal(req)
		if _, err := cmdIn.Write(append(b, 0)); err != nil {
			t.Fatalf("devtools %s: %v", method, err)
		}
		var result json.RawMessage
		for got := false; !got || until != ""; {
			raw, err := rd.ReadBytes(0)
			if err != nil {
				t.Fatalf("devtools %s: %v", method, err)
			}
			var m msg
			if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
				t.Fatalf("devtools %s: %v", method, err)
			}
			switch {
			case m.ID == id && m.Error != nil:
				t.Fatalf("devtools %s: %s", method, m.Error)
			case m.ID == id:
				result, got = m.Result, true
			case until != "" && m.Method == until:
				until = ""
			}
		}
		return result
	}
	var target struct{ TargetID string }
	json.Unmarshal(call("", "Target.createTarget", map[string]any{"url": "about:blank"}, ""), &target)
	var attached struct{ SessionID string }
	json.Unmarshal(call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, ""), &attached)
	s := attached.SessionID
	call(s, "Page.enable", map[string]any{}, "")
	call(s, "Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, "")
	call(s, "Page.navigate", map[string]any{"url": url}, "Page.loadEventFired")
	var doc struct{ Root struct{ NodeID int } }
	json.Unmarshal(call(s, "DOM.getDocument", map[string]any{"depth": -1}, ""), &doc)
	var outer struct{ OuterHTML string }
	json.Unmarshal(call(s, "DOM.getOuterHTML", map[string]any{"nodeId": doc.Root.NodeID}, ""), &outer)
	var shot struct{ Data string }
	json.Unmarshal(call(s, "Page.captureScreenshot", map[string]any{"format": "png"}, ""), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(outer.OuterHTML) == 0 {
		t.Fatal(fmt.Errorf("devtools: no DOM or screenshot (%v)", err))
	}
	return outer.OuterHTML, png
}
