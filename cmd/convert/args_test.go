package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"run f.jsonl --out o", "run --out o f.jsonl"},
		{"run f.jsonl -o o -j 2 g.jsonl", "run -o o -j 2 f.jsonl g.jsonl"},
		{"run --out=o f.jsonl --strict", "run --out=o --strict f.jsonl"},
		{"run f.jsonl -q", "-q run f.jsonl"},
		{"run - --out o", "run --out o -"},
		{"run --out o -- -odd.jsonl --strict", "run --out o -- -odd.jsonl --strict"},
		{"run f.jsonl --bogus", "run --bogus f.jsonl"},
		{"run f.jsonl --version", "--version run f.jsonl"},
		{"verify X.sig.json --key me.pub", "verify --key me.pub X.sig.json"},
		{"sign R --key k", "sign --key k R"},
		{"diff A B --format json", "diff --format json A B"},
		{"prepare load a.jsonl --store db", "prepare load --store db a.jsonl"},
		{"prepare --store db load a.jsonl", "prepare --store db load a.jsonl"},
		{"prepare read x.json -h", "prepare read -h"},
		{"help", "--help"},
		{"help run", "run --help"},
		{"help prepare load", "prepare load --help"},
		{"-q list", "-q list"},
		{"frobnicate --x", "frobnicate --x"},
		{"diff A B --help", "diff --help"},
		{"--version", "--version"},
	}
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalize(app, append([]string{"convert"}, strings.Fields(tt.in)...))
			if err != nil {
				t.Fatal(err)
			}
			if want := append([]string{"convert"}, strings.Fields(tt.want)...); !slices.Equal(got, want) {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got[1:], want[1:])
			}
		})
	}
}

// TestFlagsAnywhere runs every subcommand with its flags after the
// positional arguments (and -q last), as people type them, and requires
// the same result as with the flags first.
func TestFlagsAnywhere(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	in := filepath.Join(repo, "samples", "mcp_tool_search", "basic.jsonl")
	out := filepath.Join(dir, "out")
	if code, _, se := runCLI(t, "", "run", in, "--out", out); code != 0 {
		t.Fatalf("run: %d %s", code, se)
	}
	rec, trace := filepath.Join(out, outName("basic", ".receipt.ndjson")), filepath.Join(out, outName("basic", ".otel.jsonl"))
	if code, _, se := runCLI(t, "", "keygen", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %d %s", code, se)
	}
	other := filepath.Join(dir, "other.receipt.ndjson")
	b, _ := os.ReadFile(rec)
	os.WriteFile(other, b, 0o644)
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout string
	}{
		{"run", []string{"run", in, "--out", filepath.Join(dir, "o2"), "-j", "1", "--converter", "mcp_tool_search"}, 0, ""},
		{"run -q prints nothing", []string{"run", in, "--out", filepath.Join(dir, "o3"), "-q"}, 0, ""},
		{"list", []string{"list", "-q"}, 0, "mcp_tool_search"},
		{"validate", []string{"validate", rec, trace, "-q"}, 0, ""},
		{"validate a directory", []string{"validate", out}, 0, "2 files valid"},
		{"leakcheck", []string{"leakcheck", rec, trace, "--input", in, "-c", "mcp_tool_search"}, 0, "no leak: 2 files"},
		{"leakcheck a directory", []string{"leakcheck", out, "--input", in}, 0, "no leak: 2 files"},
		{"sign", []string{"sign", rec, "--key", filepath.Join(dir, "k.key")}, 0, "signed"},
		{"sign a directory", []string{"sign", out, "--key", filepath.Join(dir, "k.key"), "--alg", "ed25519"}, 0, "signed"},
		{"verify", []string{"verify", rec + ".sig.json", "--key", filepath.Join(dir, "k.pub")}, 0, "valid:"},
		{"verify with the source", []string{"verify", rec + ".sig.json", "--source", in, "--key", filepath.Join(dir, "k.pub")}, 0, "valid:"},
		{"audit", []string{"audit", rec, "--format", "json"}, 0, `"files": 1`},
		{"audit a directory", []string{"audit", out, "--format", "json"}, 0, `"files": 1`},
		{"diff", []string{"diff", rec, other, "--format", "json"}, 0, `"equivalent": true`},
		{"keygen", []string{"keygen", "--alg", "hmac-sha256", "--out", filepath.Join(dir, "s")}, 0, "wrote"},
		{"prepare load", []string{"prepare", "load", filepath.Join(repo, "samples", "prepare", "artifacts.jsonl"), "--store", filepath.Join(dir, "store.db")}, 0, ""},
		{"version", []string{"version"}, 0, "convert " + "0."},
		{"--version", []string{"--version"}, 0, "commit"},
		{"--version after a command", []string{"list", "--version"}, 0, "commit"},
		{"help", []string{"help"}, 0, "USAGE"},
		{"help run", []string{"help", "run"}, 0, "--otlp-endpoint"},
		{"-h after positionals", []string{"diff", rec, other, "-h"}, 0, "structural difference"},
		{"--help on a subcommand of prepare", []string{"prepare", "read", "x", "--help"}, 0, "prepare read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, so, se := runCLI(t, "", tt.args...)
			if code != tt.exit {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.exit, so, se)
			}
			if !strings.Contains(so, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, so)
			}
			if slices.Contains(tt.args, "-q") && (so != "" && tt.stdout == "" || se != "") {
				t.Errorf("-q: want nothing but data, got stdout %q stderr %q", so, se)
			}
		})
	}
}

// TestUsageErrors: every usage problem is one line on stderr naming the
// fix, exit 2, and never the help text.
func TestUsageErrors(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	in := filepath.Join(repo, "samples", "session", "basic.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag after a file", []string{"run", in, "--bogus"}, "run: unknown flag --bogus (see convert run --help)"},
		{"a number flag given a word", []string{"run", "--jobs", "abc", in}, `--jobs does not take "abc": give a whole number`},
		{"a flag without its value", []string{"run", in, "--out"}, "--out needs a value"},
		{"bad duration", []string{"run", in, "--otlp-timeout", "soon"}, "give a duration"},
		{"missing file", []string{"run", "--out", t.TempDir(), "no/such.jsonl"}, "no/such.jsonl: no such file or directory"},
		{"missing directory", []string{"validate", "no/such/dir"}, "no/such/dir: no such file or directory"},
		{"audit a missing file", []string{"audit", "no/such.receipt.ndjson"}, "no such file"},
		{"sign without a key", []string{"sign", in}, "no key: pass --key FILE"},
		{"sign a directory without receipts", []string{"sign", filepath.Join(repo, "samples", "session"), "--key", "k"}, "no .receipt.ndjson file"},
		{"diff with a missing file", []string{"diff", in, "missing.ndjson"}, "diff: cannot read missing.ndjson: no such file or directory"},
		{"leakcheck without --input", []string{"leakcheck", in}, "leakcheck needs --input"},
		{"prepare read without its required flags", []string{"prepare", "read", "--store", "x.db"}, "needs --scope"},
		{"version with an argument", []string{"version", "x"}, "version takes no arguments"},
		{"stdin twice", []string{"run", "-", "-"}, "standard input) can be given once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, so, se := runCLI(t, "", tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(se, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, se)
			}
			if n := strings.Count(strings.TrimSpace(se), "\n"); n > 0 || strings.Contains(so+se, "USAGE") {
				t.Errorf("want one line and no help text, got stdout %q stderr %q", so, se)
			}
		})
	}
}

// runCLI runs the command in process with stdin, and checks that no
// sample canary reached stdout or stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if stdin != "" {
		old := stdinReader
		stdinReader = strings.NewReader(stdin)
		defer func() { stdinReader = old }()
	}
	var so, se bytes.Buffer
	code := run(append([]string{"convert"}, args...), &so, &se)
	if strings.Contains(so.String()+se.String(), "CANARY") {
		t.Errorf("a canary reached stdout or stderr:\n%s%s", so.String(), se.String())
	}
	return code, so.String(), se.String()
}

// TestHelpEverywhere: -h and --help, before or after arguments, for every
// command and subcommand, print that command's help and exit 0.
func TestHelpEverywhere(t *testing.T) {
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, commands())
	if len(paths) < 12 {
		t.Fatalf("only %d commands", len(paths))
	}
	for _, p := range paths {
		for _, form := range [][]string{append(append([]string{}, p...), "-h"), append(append([]string{}, p...), "some-arg", "--help")} {
			code, so, se := runCLI(t, "", form...)
			if code != 0 || !strings.Contains(so, "convert "+strings.Join(p, " ")) || se != "" {
				t.Errorf("%q: exit %d, stdout lacks the help of %q; stderr %q", form, code, strings.Join(p, " "), se)
			}
		}
	}
}
