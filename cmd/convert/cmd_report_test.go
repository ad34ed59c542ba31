package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/report"
)

func TestReportCLI(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	cc := filepath.Join(repo, "samples", "claude_code")
	golden := filepath.Join(repo, "golden", "claude_code")
	tmp := t.TempDir()
	prices := filepath.Join(tmp, "prices.json")
	if err := os.WriteFile(prices, []byte(`{"claude-opus-4-7":{"input":5,"output":25,"cache_read":0.5,"cache_write":6.25}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(tmp, "partial.json")
	if err := os.WriteFile(partial, []byte(`{"claude-opus-4-7":{"input":5,"output":25,"cache_read":0.5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name           string
		args           []string
		exit           int
		stdout, stderr []string
		files          []string // relative to tmp
	}{
		{"no path", []string{"report"}, 2, nil, []string{"at least one PATH"}, nil},
		{"bad format", []string{"report", "--format", "pdf", cc}, 2, nil, []string{"--format takes table, json, markdown or html"}, nil},
		{"bad by", []string{"report", "--by", "year", cc}, 2, nil, []string{"--by takes day, week, month, session, project, agent, model"}, nil},
		{"bad date", []string{"report", "--since", "yesterday", cc}, 2, nil, []string{"--since:"}, nil},
		{"missing path", []string{"report", "no/such/dir"}, 2, nil, []string{"no/such/dir"}, nil},
		{"receipts as a table", []string{"report", golden}, 0, []string{"Tokens per model", "claude-opus-4-7", "174,100", "root_instruction_files_not_logged"}, nil, nil},
		{"logs as markdown, by agent", []string{"report", "--format", "markdown", "--by", "agent", cc}, 0, []string{"## By agent", "| claude\\_code |"}, []string{"skipped line: malformed_json"}, nil},
		{"json with prices", []string{"report", "-f", "json", "--prices", prices, golden}, 0, []string{`"cost_usd"`, `"unpriced_models"`, `"prices_file": true`}, nil, nil},
		{"cost from the catalog", []string{"report", golden}, 0, []string{"cost (USD)", "genai-prices data (@pydantic/genai-prices@"}, nil, nil},
		{"no cost", []string{"report", "--no-cost", golden}, 0, []string{"cost hidden (--no-cost)"}, nil, nil},
		{"one session by its id's start", []string{"report", "--by", "session", "--session", "7f3c2a10", golden}, 0,
			[]string{"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b", "9 sessions not selected by --session", "last activity"}, nil, nil},
		{"no session starts so", []string{"report", "--session", "ffffffff", golden}, 2, nil, []string{"--session: no session id of the 10 sessions read starts with that prefix"}, nil},
		{"no cost and prices", []string{"report", "--no-cost", "--prices", prices, golden}, 2, nil, []string{"not both"}, nil},
		{"a partial price is refused", []string{"report", "--prices", partial, golden}, 2, nil,
			[]string{"--prices: claude-opus-4-7 has no cache_write price, and the report has 29,560 cache write tokens of it"}, nil},
		{"html to a file, receipts kept", []string{"report", "-f", "html", "-o", filepath.Join(tmp, "r.html"), "--out-receipts", filepath.Join(tmp, "rec"), cc}, 0,
			nil, []string{"report of 10 sessions written to"}, []string{"r.html", "rec/basic/project-9f0b9ae06a10/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.receipt.ndjson"}},
		{"a leaking log is left out, exit 3", []string{"report", leakyLog(t), filepath.Join(repo, "samples", "session", "basic.jsonl")}, 3, []string{"Overview"}, []string{"logs left out"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			t.Setenv("NO_COLOR", "")
			t.Setenv("COLUMNS", "")
			if code := run(append([]string{"convert"}, tc.args...), &stdout, &stderr); code != tc.exit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.exit, stdout.String(), stderr.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(tmp, f)); err != nil {
					t.Errorf("no %s", f)
				}
			}
			all := stdout.String() + stderr.String()
			if strings.Contains(strings.ToUpper(all), "CANARY") || strings.Contains(all, "\x1b[") {
				t.Error("a canary or a colour escape reached the output")
			}
			if strings.Contains(strings.Join(tc.args, " "), "-f json") {
				if err := report.ValidateJSON(stdout.Bytes()); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestReportHostileReceipts: receipts read from disk may come from
// anywhere; report prints a name, model, version, file name, key or value
// from one only when a written receipt could hold it in its field, else its
// digest, in every format.
func TestReportHostileReceipts(t *testing.T) {
	src, err := os.ReadFile("../../golden/claude_code/bad_junk_lines.receipt.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for old, new := range map[string]string{
		`"gen_ai.request.model":"`:          `"gen_ai.request.model":"CANARY/4111111111111111 `,
		`"convert.input.path":"`:            `"convert.input.path":"CANARY dir/Users/CANARYUSER/`,
		`"convert.input.agent_versions":["`: `"convert.input.agent_versions":["CANARY 555-123-4567 `,
		`"convert.converter":"`:             `"convert.converter":"AKIAIOSFODNN7CANARY `,
		`"attributes":{`:                    `"attributes":{"CANARY key /Users/x":"CANARY value 10.1.2.3",`,
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("the receipt lacks %q", old)
		}
		s = strings.ReplaceAll(s, old, new)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad_junk_lines.receipt.ndjson"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json", "markdown", "html"} {
		code, out, errs := call(t, nil, "report", "--format", format, "--by", "model", dir) // call fails on any CANARY
		if code != 0 || !strings.Contains(out, "withheld") {
			t.Errorf("%s: exit %d, want 0 and withheld values:\n%s%s", format, code, out, errs)
		}
		for _, bad := range []string{"4111111111111111", "555-123-4567", "AKIAIOSFODNN7", "/Users/", "10.1.2.3"} {
			if strings.Contains(out+errs, bad) {
				t.Errorf("%s: report printed %q", format, bad)
			}
		}
	}
}

// TestReportColumns: the table fits $COLUMNS, and says what it left out.
func TestReportColumns(t *testing.T) {
	golden, _ := filepath.Abs("../../golden")
	for _, cols := range []string{"80", "100"} {
		t.Setenv("COLUMNS", cols)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"convert", "report", "--by", "session", golden}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		n, _ := strconv.Atoi(cols)
		for _, line := range strings.Split(stdout.String(), "\n") {
			if utf8.RuneCountInString(line) > n {
				t.Errorf("COLUMNS=%s: a line of %d: %q", cols, utf8.RuneCountInString(line), line)
			}
		}
		if !strings.Contains(stdout.String(), "left out to fit "+cols+" columns") {
			t.Errorf("COLUMNS=%s: no note of what was left out", cols)
		}
	}
}
