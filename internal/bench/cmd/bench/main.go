// Command bench generates the benchmark corpus and measures convert against
// the extract-and-hash baseline, jq and ccusage on it (make bench).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/contextreceipts/convert/internal/bench"
)

func main() {
	dir := flag.String("dir", "bench/corpus", "corpus `DIR` (rewritten)")
	out := flag.String("results", "bench/results.json", "results `FILE`")
	convert := flag.String("convert", "bin/convert", "convert binary")
	totalMB := flag.Int("total-mb", 500, "corpus size in MB, besides the big file")
	bigMB := flag.Int("big-mb", 1024, "size of the single big session in MB (0: none)")
	tools := flag.String("tools", "bench/.tools", "where ccusage is installed (npm)")
	flag.Parse()
	if err := run(*dir, *out, *convert, *tools, int64(*totalMB)<<20, int64(*bigMB)<<20); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(dir, out, convert, tools string, total, big int64) error {
	fmt.Fprintf(os.Stderr, "bench: generating %d MB + %d MB corpus in %s\n", total>>20, big>>20, dir)
	c, err := bench.Generate(dir, bench.Spec{TotalBytes: total, BigBytes: big, Seed: 42})
	if err != nil {
		return err
	}
	files, size, err := bench.Files(filepath.Join(dir, "projects"), filepath.Join(dir, "codex"))
	if err != nil {
		return err
	}
	var results []bench.Result
	add := func(r bench.Result, err error) {
		if err != nil {
			r.Note = "failed: " + err.Error()
		}
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "bench: %s: %.1f MB/s wall\n", r.Name, r.MBpsWall)
	}
	base, err := bench.Baseline(files, size)
	if err != nil {
		return err
	}
	add(base, nil)
	outDir := filepath.Join(dir, "..", "out")
	roots := []string{filepath.Join(dir, "projects"), filepath.Join(dir, "codex")}
	for _, jobs := range []int{1, runtime.NumCPU()} {
		os.RemoveAll(outDir)
		argv := append([]string{convert, "run", "--force", "--jobs", strconv.Itoa(jobs), "--out", outDir}, roots...)
		add(bench.Command(fmt.Sprintf("convert run, %d worker(s), whole corpus", jobs), size, nil, argv...))
	}
	if c.BigFile != "" {
		st, _ := os.Stat(c.BigFile)
		os.RemoveAll(outDir)
		add(bench.Command("convert run, 1 worker, the big session alone", st.Size(), nil,
			convert, "run", "--force", "--jobs", "1", "--out", outDir, c.BigFile))
	}
	os.RemoveAll(outDir)
	add(bench.Command(fmt.Sprintf("convert run, %d worker(s), Claude Code part", runtime.NumCPU()), c.ClaudeBytes, nil,
		convert, "run", "--force", "--out", outDir, filepath.Join(dir, "projects")))
	os.RemoveAll(outDir)
	if jq, err := exec.LookPath("jq"); err == nil {
		add(bench.Command("jq -c '{t:.type,s:.sessionId}'", size, nil, append([]string{jq, "-c", "{t:.type,s:.sessionId}"}, files...)...))
	} else {
		results = append(results, bench.Result{Name: "jq", Note: "not installed: skipped"})
	}
	if cc, err := ccusage(tools); err == nil {
		add(bench.Command("ccusage session --json --offline (Claude Code part; sums tokens only)", c.ClaudeBytes,
			[]string{"CLAUDE_CONFIG_DIR=" + dir}, cc, "session", "--json", "--offline"))
	} else {
		results = append(results, bench.Result{Name: "ccusage", Note: "not available: " + err.Error()})
	}
	for i := range results {
		if results[i].MBpsWall > 0 && base.MBpsWall > 0 {
			results[i].RatioWall = results[i].MBpsWall / base.MBpsWall
			results[i].RatioCPU = results[i].MBpsCPU / base.MBpsCPU
		}
	}
	report := map[string]any{"corpus": map[string]any{"files": c.Files, "bytes": size, "claude_code_bytes": c.ClaudeBytes,
		"codex_bytes": c.CodexBytes, "big_file_bytes": big}, "cpus": runtime.NumCPU(), "results": results}
	b, _ := json.MarshalIndent(report, "", "  ")
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("corpus: %d files, %.0f MB (Claude Code %.0f MB, Codex %.0f MB), %d CPUs\n\n", c.Files, float64(size)/1e6,
		float64(c.ClaudeBytes)/1e6, float64(c.CodexBytes)/1e6, runtime.NumCPU())
	fmt.Printf("%-72s %9s %9s %8s %8s %9s\n", "run", "MB/s wall", "MB/s cpu", "x base", "x b.cpu", "peak RSS")
	for _, r := range results {
		if r.Note != "" && r.WallSeconds == 0 {
			fmt.Printf("%-72s %s\n", r.Name, r.Note)
			continue
		}
		fmt.Printf("%-72s %9.1f %9.1f %8.2f %8.2f %7.0fMB %s\n", r.Name, r.MBpsWall, r.MBpsCPU, r.RatioWall, r.RatioCPU, r.PeakRSSMB, r.Note)
	}
	fmt.Printf("\nresults in %s\n", out)
	return nil
}

// ccusage returns the ccusage binary, installing ccusage 20.0.24 with its
// Linux binary package into tools with npm when it is not there yet.
func ccusage(tools string) (string, error) {
	bin := filepath.Join(tools, "node_modules", ".bin", "ccusage")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command(npm, "install", "--prefix", tools, "--no-audit", "--no-fund", "ccusage@20.0.24", "@ccusage/ccusage-linux-x64@20.0.24")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return bin, nil
}
