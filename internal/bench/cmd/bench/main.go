// Command bench builds a corpus shaped like a real history from the real
// transcripts in ../shared/corpus-seed and measures convert on it against
// the extract-and-hash baseline, ccusage and jq, all in the same run
// (make bench). It prints a table and writes every figure to
// bench/results.json.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/contextreceipts/convert/converters/all"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/bench"
	"github.com/contextreceipts/convert/internal/leak"
)

func main() {
	o := opts{}
	flag.StringVar(&o.dir, "dir", "bench/corpus", "corpus `DIR` (rebuilt unless built from the same spec)")
	flag.StringVar(&o.seeds, "seeds", "../shared/corpus-seed", "`DIR` of real transcripts: claude-code/*.jsonl, codex/*.jsonl")
	flag.StringVar(&o.out, "results", "bench/results.json", "results `FILE`")
	flag.StringVar(&o.convert, "convert", "bin/convert", "convert binary")
	flag.IntVar(&o.totalMB, "total-mb", 1000, "size of the history in MB (Claude Code and Codex sessions)")
	flag.IntVar(&o.bigMB, "big-mb", 1024, "size of the single big Claude Code session in MB (0: none)")
	flag.StringVar(&o.tools, "tools", "bench/.tools", "where ccusage is installed (npm)")
	flag.IntVar(&o.oneRuns, "fixed-runs", 50, "runs of the one-line file for the fixed cost")
	flag.StringVar(&o.profile, "cpuprofile", "", "write CPU profiles of the one-worker runs to `DIR` (CONVERT_CPUPROFILE)")
	flag.BoolVar(&o.jq, "jq", true, "also time jq over the history")
	flag.IntVar(&o.runs, "runs", 3, "runs of each row a speed target reads (the baselines, convert's and ccusage's): the run of median wall time is kept")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type opts struct {
	dir, seeds, out, convert, tools, profile string
	totalMB, bigMB, oneRuns, runs            int
	jq                                       bool
}

// Fixed is the per-process cost: a one-line file converted, start to exit.
type Fixed struct {
	Runs         int     `json:"runs"`
	MedianMs     float64 `json:"median_ms"`
	MeanMs       float64 `json:"mean_ms"`
	MinMs        float64 `json:"min_ms"`
	P90Ms        float64 `json:"p90_ms"`
	CPUMs        float64 `json:"mean_cpu_ms"`
	TrueMedianMs float64 `json:"process_spawn_median_ms"` // /bin/true, the floor
	// The fixed cost in parts: a Go program that does nothing (built as
	// convert is), and convert --version (its start: every package's init,
	// no input, no output).
	GoFloorMedianMs float64 `json:"go_floor_median_ms"`
	VersionMedianMs float64 `json:"version_median_ms"`
}

// Point is one corpus size of the linearity series.
type Point struct {
	Fraction      float64 `json:"fraction"`
	Bytes         int64   `json:"bytes"`
	Files         int     `json:"files"` // input files: sessions and subagent transcripts
	WallSeconds   float64 `json:"wall_seconds"`
	CPUSeconds    float64 `json:"cpu_seconds"`
	WallSecPerMB  float64 `json:"wall_s_per_mb"`
	CPUSecPerMB   float64 `json:"cpu_s_per_mb"`
	WallMsPerSess float64 `json:"wall_ms_per_file"`
	CPUMsPerFile  float64 `json:"cpu_ms_per_file"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
}

// Target is one of the speed goals (issue #52), with the figure measured
// for it.
type Target struct {
	Goal     string  `json:"goal"`
	Measured float64 `json:"measured"`
	Want     string  `json:"want"`
	Met      bool    `json:"met"`
	Note     string  `json:"note,omitempty"`
}

type bencher struct {
	o       opts
	results []bench.Result
	base    bench.Result
	outs    int    // folders fresh has named
	outRoot string // every run's outputs go under it (setOutRoot)
}

func (b *bencher) add(r bench.Result, err error) bench.Result {
	if err != nil {
		r.Note = "failed: " + err.Error()
	}
	if b.base.MBpsWall == 0 && strings.HasPrefix(r.Name, "baseline") {
		r.RatioWall, r.RatioCPU = 1, 1
	} else if b.base.MBpsWall > 0 && r.MBpsWall > 0 {
		r.RatioWall, r.RatioCPU = r.MBpsWall/b.base.MBpsWall, r.MBpsCPU/b.base.MBpsCPU
	}
	b.results = append(b.results, r)
	fmt.Fprintf(os.Stderr, "bench: %-66s %7.2fs wall %7.1f MB/s %6.0f MB RSS %s\n", r.Name, r.WallSeconds, r.MBpsWall, r.PeakRSSMB, r.Note)
	return r
}

// convert times one convert run into a fresh folder named after out,
// or into out itself when keep (a run over an earlier run's outputs).
func (b *bencher) convert(name string, size int64, jobs int, out string, keep bool, profile string, paths ...string) bench.Result {
	return b.add(b.convertRun(name, size, jobs, out, keep, profile, paths...))
}

// convertMedian is convert, run as many times as -runs asks, keeping the
// run of median wall time: the rows a speed target reads.
func (b *bencher) convertMedian(name string, size int64, jobs int, out string, profile string, paths ...string) bench.Result {
	return b.add(bench.Median(b.o.runs, func() (bench.Result, error) {
		return b.convertRun(name, size, jobs, out, false, profile, paths...)
	}))
}

// fresh names a folder no run has used: out.1, out.2, ... Every timed run
// must write into a new one, and nothing may be deleted until the bench
// ends: emptying the folder between runs makes each timed run pay for the
// one before, since ext4's inode allocator passes over recently freed
// inodes (recently_deleted) in the parent folder's group, reading their
// inode table blocks, for each file it creates (find_get_block_common and
// __brelse in a profile). A user's run into a new folder pays no such
// cost, and ccusage and the baseline write nothing.
func (b *bencher) fresh(out string) string {
	b.outs++
	return fmt.Sprintf("%s.%d", out, b.outs)
}

func (b *bencher) convertRun(name string, size int64, jobs int, out string, keep bool, profile string, paths ...string) (bench.Result, error) {
	if !keep {
		out = b.fresh(out)
	}
	argv := []string{b.o.convert, "run", "--jobs", strconv.Itoa(jobs), "--out", out}
	var env []string
	if profile != "" && b.o.profile != "" {
		os.MkdirAll(b.o.profile, 0o755)
		env = append(env, "CONVERT_CPUPROFILE="+filepath.Join(b.o.profile, profile))
	}
	r, err := bench.Command(name, size, env, false, append(argv, paths...)...)
	r.Out = out
	return r, err
}

// history is the generated corpus and the history a run converts: the
// Claude Code projects and the Codex sessions, as input files.
type history struct {
	c                      bench.Corpus
	ccProjects, cxSessions string
	files                  []string
	size                   int64
	genSeconds             float64
}

// measured holds the rows the targets read, as the steps of run measure
// them.
type measured struct {
	cpus                            int
	fixed                           Fixed
	one, all, again                 bench.Result // the whole history
	cc, ccFloor, ccIO, ccu, cx, cxu bench.Result // its Claude Code and Codex parts
	alone, big                      bench.Result
	points                          []Point // 10%, 30%, all of the history
	ccWritten                       int64   // bytes the Claude Code part's run wrote
	busy                            string  // the busy-host warning, or ""
}

// run measures everything in a fixed order (the table and results.json
// keep it) and writes the results.
func run(o opts) error {
	b := &bencher{o: o}
	m := &measured{cpus: runtime.NumCPU()}
	if o.profile != "" {
		removeProfiles(o.profile)
	}
	h, err := buildHistory(o)
	if err != nil {
		return err
	}
	cleanup := b.setOutRoot(filepath.Join(filepath.Dir(o.dir), "out"))
	defer cleanup()

	if m.fixed, err = fixedCost(o, h.c.OneLine, func() string { return b.fresh(b.outDir("oneline")) }); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: fixed cost: one-line file %.1f ms median over %d runs (process spawn %.1f ms, a Go program that does nothing %.1f ms, convert --version %.1f ms)\n",
		m.fixed.MedianMs, m.fixed.Runs, m.fixed.TrueMedianMs, m.fixed.GoFloorMedianMs, m.fixed.VersionMedianMs)
	if err := b.historyRuns(h, m); err != nil {
		return err
	}
	if err := b.partRuns(h, m); err != nil {
		return err
	}
	b.linearityRuns(h, m)
	b.largestAlone(h, m)
	if err := b.bigSession(h, m); err != nil {
		return err
	}
	if o.jq {
		b.jqRun(h)
	}
	return b.writeResults(h, m, m.targets(h.c))
}

// removeProfiles deletes the profiles an earlier run left in dir, so that
// none of them shows in this run's summary.
func removeProfiles(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, "*.prof"))
	for _, p := range old {
		os.Remove(p)
	}
}

// buildHistory generates the corpus (or reuses it, when built from the
// same spec) and lists the history's input files.
func buildHistory(o opts) (history, error) {
	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "bench: corpus of %d MB + a %d MB session from %s in %s\n", o.totalMB, o.bigMB, o.seeds, o.dir)
	c, err := bench.Generate(o.dir, bench.Spec{Seeds: o.seeds, TotalBytes: int64(o.totalMB) << 20, BigBytes: int64(o.bigMB) << 20, Seed: 42})
	if err != nil {
		return history{}, err
	}
	h := history{c: c, genSeconds: time.Since(t0).Seconds(),
		ccProjects: filepath.Join(c.Claude, "projects"), cxSessions: filepath.Join(c.Codex, "sessions")}
	if h.files, h.size, err = bench.Files(h.ccProjects, h.cxSessions); err != nil {
		return history{}, err
	}
	fmt.Fprintf(os.Stderr, "bench: %d files, %.0f MB, built in %.1fs\n", len(h.files), float64(h.size)/1e6, h.genSeconds)
	return h, nil
}

// setOutRoot makes root the folder every run's outputs go under, and
// returns what removes them when the bench ends. An interrupted bench's
// outputs are moved aside, not deleted, until this one ends (see fresh);
// a run into one of its folders would find its manifest and skip every
// input.
func (b *bencher) setOutRoot(root string) (cleanup func()) {
	b.outRoot = root
	stale := root + ".stale"
	os.RemoveAll(stale)
	os.Rename(root, stale)
	return func() {
		os.RemoveAll(root)
		os.RemoveAll(stale)
	}
}

// outDir is the output folder called name.
func (b *bencher) outDir(name string) string { return filepath.Join(b.outRoot, name) }

// historyRuns measures the baseline and convert over the whole history:
// one worker (with the write and check floors), every CPU, and every CPU
// again over the unchanged history. The baseline and the one-worker run,
// whose ratio is a target, are measured in rounds (bench.Interleave).
func (b *bencher) historyRuns(h history, m *measured) error {
	rows, err := bench.Interleave(b.o.runs,
		func(int) (bench.Result, error) { return bench.Baseline(h.files, h.size) },
		func(int) (bench.Result, error) {
			return b.convertRun("convert run --jobs 1, history", h.size, 1, b.outDir("one"), false, "jobs1-history.prof", h.ccProjects, h.cxSessions)
		})
	if err != nil {
		return err
	}
	b.base = b.add(rows[0], nil)
	m.one = b.add(rows[1], nil)
	b.add(bench.WriteFloor(m.one.Out, b.fresh(b.outDir("floor")), h.size))
	b.add(bench.CheckFloor("check floor: sha256 + UTF-8 + JSON scan + leak walk of every line, 1 goroutine, history", h.files, h.size, 1, passThrough(h.ccProjects)))
	m.all = b.convert(fmt.Sprintf("convert run --jobs %d, history", m.cpus), h.size, m.cpus, b.outDir("all"), false, "", h.ccProjects, h.cxSessions)
	m.again = b.convert(fmt.Sprintf("convert run --jobs %d, history again (unchanged, manifest)", m.cpus), h.size, m.cpus, m.all.Out, true, "", h.ccProjects, h.cxSessions)
	return nil
}

// partRuns measures convert on the history's Claude Code and Codex parts
// against ccusage on the same part, with the check and I/O floors of the
// Claude Code part. The Claude Code rows, whose ratios are targets, are
// measured in rounds (convert, check floor, I/O floor, ccusage; each I/O
// floor rewrites the tree its round's convert run wrote). Without
// ccusage, its rows say why.
func (b *bencher) partRuns(h history, m *measured) error {
	c, cpus := h.c, m.cpus
	ccFiles, _, err := bench.Files(h.ccProjects)
	if err != nil {
		return err
	}
	empty := b.outDir("empty-home")
	os.MkdirAll(empty, 0o755)
	ccusage, cerr := ccusageBin(b.o.tools)
	outs := map[int]string{}
	rows := []func(int) (bench.Result, error){
		func(round int) (bench.Result, error) {
			r, err := b.convertRun(fmt.Sprintf("convert run --jobs %d, Claude Code part", cpus), c.ClaudeShape.Bytes, cpus, b.outDir("cc"), false, "", h.ccProjects)
			outs[round] = r.Out
			return r, err
		},
		func(int) (bench.Result, error) {
			return bench.CheckFloor(fmt.Sprintf("check floor, %d goroutines, Claude Code part", cpus), ccFiles, c.ClaudeShape.Bytes, cpus, passThrough(h.ccProjects))
		},
		func(round int) (bench.Result, error) {
			return bench.IOFloor(fmt.Sprintf("I/O floor: every input read and sha256'd, the run's outputs written again, %d goroutines, Claude Code part", cpus),
				ccFiles, outs[round], b.fresh(b.outDir("ccio")), c.ClaudeShape.Bytes, cpus)
		},
	}
	if cerr == nil {
		rows = append(rows, func(int) (bench.Result, error) {
			return bench.Command("ccusage session --json --offline, Claude Code part (sums tokens only)", c.ClaudeShape.Bytes,
				[]string{"HOME=" + empty, "CLAUDE_CONFIG_DIR=" + c.Claude, "CODEX_HOME=" + empty}, true, ccusage, "session", "--json", "--offline")
		})
	}
	rs, err := bench.Interleave(b.o.runs, rows...)
	if err != nil {
		return err
	}
	m.cc, m.ccFloor, m.ccIO = b.add(rs[0], nil), b.add(rs[1], nil), b.add(rs[2], nil)
	m.ccWritten = treeBytes(m.cc.Out)
	if cerr == nil {
		m.ccu = b.tool(rs[3], nil, &m.cc, &m.ccFloor, &m.ccIO)
	} else {
		b.results = append(b.results, bench.Result{Name: "ccusage", Note: "not available: " + cerr.Error()})
	}
	m.busy = busy(m.ccIO)
	m.cx = b.convertMedian(fmt.Sprintf("convert run --jobs %d, Codex part", cpus), c.CodexShape.Bytes, cpus, b.outDir("cx"), "", h.cxSessions)
	if cerr == nil {
		r, err := bench.Median(b.o.runs, func() (bench.Result, error) {
			return bench.Command("ccusage codex session --json --offline, Codex part", c.CodexShape.Bytes,
				[]string{"HOME=" + empty, "CODEX_HOME=" + c.Codex, "CLAUDE_CONFIG_DIR=" + empty}, true, ccusage, "codex", "session", "--json", "--offline")
		})
		m.cxu = b.tool(r, err, &m.cx)
	}
	return nil
}

// busySpread is the I/O floor's spread above which the host was busy:
// the floor runs none of convert's code, so its runs differ only by what
// else the machine did. On a quiet 2-core machine its runs stay within
// about 10% of each other; the 2.2x swings seen on a shared host are far
// above this.
const busySpread = 25

// busy is the warning printed above the targets when the I/O floor's
// runs spread more than busySpread, or "".
func busy(io bench.Result) string {
	if io.SpreadPct <= busySpread {
		return ""
	}
	return fmt.Sprintf("the host was busy: the I/O floor's runs spread %.0f%% (quiet: under %d%%); the ratios of this run may be off by as much", io.SpreadPct, busySpread)
}

// linearityRuns converts the history's first tenth and first three tenths
// (whole project and day folders, in a fixed shuffled order); with the
// whole history's one-worker run, they are the linearity points.
func (b *bencher) linearityRuns(h history, m *measured) {
	units := unitsOf(h.c)
	for _, frac := range []float64{0.1, 0.3} {
		paths, n := subset(units, int64(frac*float64(h.size)))
		r := b.convert(fmt.Sprintf("convert run --jobs 1, %.0f%% of the history", frac*100), n, 1, b.outDir("sub"), false, "", paths...)
		fs, _, _ := bench.Files(paths...)
		m.points = append(m.points, point(r, len(fs)))
	}
	m.points = append(m.points, point(m.one, len(h.files)))
	for i := range m.points {
		m.points[i].Fraction = float64(m.points[i].Bytes) / float64(h.size)
	}
}

// largestAlone converts the history's largest file alone: memory should
// follow the largest input, not the number of inputs, and this is the run
// the whole history's peak is held against.
func (b *bencher) largestAlone(h history, m *measured) {
	largest, largestSize := "", int64(0)
	for _, f := range h.files {
		if st, err := os.Stat(f); err == nil && st.Size() > largestSize {
			largest, largestSize = f, st.Size()
		}
	}
	m.alone = b.convert("convert run --jobs 1, the history's largest file alone", largestSize, 1, b.outDir("largest"), false, "", largest)
}

// bigSession measures the big session alone, against a baseline of its
// own (the history's baseline is restored after), when the corpus has one.
func (b *bencher) bigSession(h history, m *measured) error {
	c := h.c
	if c.BigFile == "" {
		return nil
	}
	bigBase, err := bench.Median(b.o.runs, func() (bench.Result, error) { return bench.Baseline([]string{c.BigFile}, c.BigBytes) })
	if err != nil {
		return err
	}
	bigBase.Name = "baseline, the big session"
	saved := b.base
	b.base = bench.Result{}
	b.base = b.add(bigBase, nil)
	m.big = b.convertMedian("convert run --jobs 1, the big session alone", c.BigBytes, 1, b.outDir("big"), "jobs1-big.prof", c.BigFile)
	b.base = saved
	return nil
}

// jqRun times jq over the history, when jq is on PATH.
func (b *bencher) jqRun(h history) {
	if jq, err := exec.LookPath("jq"); err == nil {
		b.add(bench.Command("jq -c '{t:.type,s:.sessionId}', history", h.size, nil, false, append([]string{jq, "-c", "{t:.type,s:.sessionId}"}, h.files...)...))
	}
}

// targets judges each goal against the rows measured for it.
func (m *measured) targets(c bench.Corpus) []Target {
	cc, ccFloor, ccIO, ccu, cx, cxu := m.cc, m.ccFloor, m.ccIO, m.ccu, m.cx, m.cxu
	one, all, again, alone, big := m.one, m.all, m.again, m.alone, m.big
	fixed, points, cpus := m.fixed, m.points, m.cpus
	written := ratio(float64(m.ccWritten), float64(c.ClaudeShape.Bytes))
	return []Target{
		// The re-based goals: the floors and peers are measured in the
		// same run, so each ratio means the same from run to run.
		target("convert (all CPUs) / check floor, Claude Code part (wall)", ratio(cc.WallSeconds, ccFloor.WallSeconds), "<= 2.0",
			ratio(cc.WallSeconds, ccFloor.WallSeconds) <= 2.0 && clean(cc), fmt.Sprintf("%.2f s / %.2f s", cc.WallSeconds, ccFloor.WallSeconds)),
		target("convert (all CPUs) vs ccusage session, Claude Code part: ccusage wall / convert wall", cc.RatioTool, ">= 0.5", cc.RatioTool >= 0.5 && clean(cc), joinNotes(ccu.Note, cc.Note)),
		target("convert --jobs 1 vs baseline, history (MB/s ratio)", one.RatioWall, ">= 0.5", one.RatioWall >= 0.5 && clean(one), one.Note),
		target("bytes written per input byte, Claude Code part", written, "<= 0.15", written <= 0.15 && m.ccWritten > 0,
			fmt.Sprintf("%.1f MB written for %.1f MB read", float64(m.ccWritten)/1e6, float64(c.ClaudeShape.Bytes)/1e6)),
		target("second run over the unchanged history / first run (wall)", ratio(again.WallSeconds, all.WallSeconds), "<= 0.03", ratio(again.WallSeconds, all.WallSeconds) <= 0.03, ""),
		target("fixed cost: one-line file, start to exit, median ms", fixed.MedianMs, "<= 15", fixed.MedianMs <= 15, ""),
		target("peak RSS, the big session, 1 worker (MB)", big.PeakRSSMB, "<= 120", c.BigFile != "" && big.PeakRSSMB <= 120 && clean(big), joinNotes(skipped(c.BigFile), big.Note)),
		// What convert cannot skip, against ccusage: reading and hashing
		// the inputs and writing the outputs, with no check at all; and
		// the rows of earlier goals, kept for comparison.
		target("I/O floor (all CPUs) vs ccusage session, Claude Code part: ccusage wall / floor wall", ccIO.RatioTool, "informative", true, ccIO.Note),
		target("check floor (all CPUs) vs ccusage session, Claude Code part: ccusage wall / floor wall", ccFloor.RatioTool, "informative", true, ccFloor.Note),
		target("convert (all CPUs) vs ccusage codex session, Codex part: ccusage wall / convert wall", cx.RatioTool, "informative", true, joinNotes(cxu.Note, cx.Note)),
		target("convert --jobs 1 vs baseline, the big session (MB/s ratio)", big.RatioWall, "informative", true, joinNotes(skipped(c.BigFile), big.Note)),
		// Growth with the corpus is the history against its first 30%:
		// the comparison needs both runs to allocate past the memory
		// limit's floor, so that the collector holds both heaps there,
		// and a 10% part may end below it (on a quick 100 MB run it
		// does). The largest file alone ends before its heap reaches the
		// floor, so that ratio compares a floor with a run that never
		// collected: informative.
		target("peak RSS does not grow with the corpus: 1 worker, history / its first 30%", ratio(one.PeakRSSMB, points[1].PeakRSSMB), "<= 1.25", ratio(one.PeakRSSMB, points[1].PeakRSSMB) <= 1.25,
			fmt.Sprintf("%.0f / %.0f MB; 10%% of the history: %.0f MB", one.PeakRSSMB, points[1].PeakRSSMB, points[0].PeakRSSMB)),
		target("peak RSS, 1 worker, history / its largest file alone", ratio(one.PeakRSSMB, alone.PeakRSSMB), "informative", true,
			fmt.Sprintf("%.0f / %.0f MB", one.PeakRSSMB, alone.PeakRSSMB)),
		target(fmt.Sprintf("peak RSS grows with workers: %d / 1 worker(s), history", cpus), ratio(all.PeakRSSMB, one.PeakRSSMB), "informative", true, ""),
		// A tenth of the history's folders is not a tenth of its files: the
		// few sessions of tens of MB are rarely in it, so it holds more,
		// smaller files per MB, and a cost per file shows as a higher cost
		// per MB. Both rows are read; the note gives each part's mix.
		target("cost linear in bytes: CPU s/MB, 100% / 10% of the history", ratio(points[2].CPUSecPerMB, points[0].CPUSecPerMB), "0.8-1.25", between(ratio(points[2].CPUSecPerMB, points[0].CPUSecPerMB), 0.8, 1.25),
			fmt.Sprintf("mean file %.0f KB in all of it, %.0f KB in its 10%%", points[2].meanKB(), points[0].meanKB())),
		target("cost linear in sessions: CPU ms/file, 100% / 10% of the history", ratio(points[2].CPUMsPerFile, points[0].CPUMsPerFile), "0.8-1.25", between(ratio(points[2].CPUMsPerFile, points[0].CPUMsPerFile), 0.8, 1.25),
			fmt.Sprintf("%.2f / %.2f ms per file", points[2].CPUMsPerFile, points[0].CPUMsPerFile)),
	}
}

// treeBytes is the size of every file under dir.
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// writeResults writes every figure to the results file and prints the
// table.
func (b *bencher) writeResults(h history, m *measured, targets []Target) error {
	o := b.o
	report := map[string]any{
		"date": time.Now().UTC().Format(time.RFC3339), "cpus": m.cpus, "go": runtime.Version(),
		"spec":   map[string]any{"total_mb": o.totalMB, "big_mb": o.bigMB, "seeds": o.seeds, "build_seconds": h.genSeconds, "runs": o.runs},
		"corpus": h.c, "history_files": len(h.files), "history_bytes": h.size,
		"fixed_cost": m.fixed, "results": b.results, "linearity": m.points, "targets": targets,
	}
	if m.busy != "" {
		report["busy_host"] = m.busy
	}
	if o.profile != "" {
		report["profiles"] = profileSummaries(o.convert, o.profile)
	}
	js, _ := json.MarshalIndent(report, "", "  ")
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(js, '\n'), 0o644); err != nil {
		return err
	}
	printReport(h.c, len(h.files), h.size, m.cpus, m.fixed, b.results, m.points, targets)
	if m.busy != "" {
		fmt.Printf("\nWARNING: %s\n", m.busy)
	}
	fmt.Printf("\nresults in %s\n", o.out)
	if o.profile != "" {
		fmt.Printf("CPU profiles in %s: go tool pprof -top %s %s/jobs1-history.prof\n", o.profile, o.convert, o.profile)
	}
	return nil
}

// profileSummaries is the top of each CPU profile the run wrote, by
// cumulative time, as go tool pprof prints it.
func profileSummaries(convert, dir string) map[string][]string {
	out := map[string][]string{}
	profs, _ := filepath.Glob(filepath.Join(dir, "*.prof"))
	for _, p := range profs {
		b, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=30", convert, p).Output()
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, l := range lines {
			if strings.Contains(l, "flat%") {
				lines = lines[i:]
				break
			}
		}
		out[strings.TrimSuffix(filepath.Base(p), ".prof")] = lines
	}
	return out
}

// tool records a comparison tool's run over the tree each of convs read
// (convert's run, the check and I/O floors'), and sets their ratio to it (the
// tool's wall over theirs).
func (b *bencher) tool(r bench.Result, err error, convs ...*bench.Result) bench.Result {
	if err == nil {
		r.Note = reported(r.Stdout)
	}
	r = b.add(r, err)
	for _, conv := range convs {
		if err != nil || conv.WallSeconds <= 0 {
			continue
		}
		conv.RatioTool = r.WallSeconds / conv.WallSeconds
		for i := range b.results {
			if b.results[i].Name == conv.Name {
				b.results[i].RatioTool = conv.RatioTool
			}
		}
	}
	return r
}

// reported says how many sessions a ccusage JSON report lists: a run that
// read nothing would be fast for nothing.
func reported(stdout []byte) string {
	var doc map[string]json.RawMessage
	if json.Unmarshal(stdout, &doc) != nil {
		return "output is not a JSON object"
	}
	for _, k := range []string{"sessions", "session"} {
		var l []json.RawMessage
		if json.Unmarshal(doc[k], &l) == nil {
			return fmt.Sprintf("%d sessions reported", len(l))
		}
	}
	keys := []string{}
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "keys " + strings.Join(keys, ",")
}

// clean reports a run in which every input converted: a run where some
// failed (a leak check refusing an input stops it early) is timed and
// shown, but meets no target.
func clean(r bench.Result) bool { return r.ExitCode == 0 }

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

func target(goal string, v float64, want string, met bool, note string) Target {
	return Target{Goal: goal, Measured: v, Want: want, Met: met, Note: note}
}

func skipped(big string) string {
	if big == "" {
		return "no big session (BENCH_BIG_MB=0)"
	}
	return ""
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func between(v, lo, hi float64) bool { return v >= lo && v <= hi }

func point(r bench.Result, sessions int) Point {
	p := Point{Bytes: r.Bytes, Files: sessions, WallSeconds: r.WallSeconds, CPUSeconds: r.CPUSeconds, PeakRSSMB: r.PeakRSSMB}
	if mb := float64(r.Bytes) / 1e6; mb > 0 {
		p.WallSecPerMB, p.CPUSecPerMB = r.WallSeconds/mb, r.CPUSeconds/mb
	}
	if p.Files > 0 {
		p.WallMsPerSess = r.WallSeconds * 1000 / float64(p.Files)
		p.CPUMsPerFile = r.CPUSeconds * 1000 / float64(p.Files)
	}
	return p
}

// meanKB is the mean input file's size.
func (p Point) meanKB() float64 {
	if p.Files == 0 {
		return 0
	}
	return float64(p.Bytes) / 1e3 / float64(p.Files)
}

type unit struct {
	path  string
	bytes int64
}

// unitsOf lists the history's project folders and Codex day folders, in a
// fixed shuffled order, with their sizes.
func unitsOf(c bench.Corpus) []unit {
	dirs := append([]string(nil), c.Projects...)
	days, _ := filepath.Glob(filepath.Join(c.Codex, "sessions", "*", "*", "*"))
	dirs = append(dirs, days...)
	sort.Strings(dirs)
	var out []unit
	for _, d := range dirs {
		_, n, _ := bench.Files(d)
		out = append(out, unit{d, n})
	}
	// A fixed interleaving, so a prefix mixes Claude Code and Codex.
	for i := range out {
		j := (i * 7919) % len(out)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func subset(units []unit, want int64) ([]string, int64) {
	var paths []string
	var n int64
	for _, u := range units {
		if n >= want {
			break
		}
		paths = append(paths, u.path)
		n += u.bytes
	}
	return paths, n
}

// fixedCost converts the one-line file runs times, process start to exit,
// each into a new folder from out.
func fixedCost(o opts, file string, out func() string) (Fixed, error) {
	f := Fixed{Runs: o.oneRuns}
	if f.Runs <= 0 {
		return f, nil
	}
	var walls []float64
	var cpu float64
	for range f.Runs {
		r, err := bench.Command("one line", 0, nil, false, o.convert, "run", "--jobs", "1", "--out", out(), file)
		if err != nil {
			return f, fmt.Errorf("one-line file: %w", err)
		}
		walls = append(walls, r.WallSeconds*1000)
		cpu += r.CPUSeconds * 1000
	}
	sort.Float64s(walls)
	var sum float64
	for _, w := range walls {
		sum += w
	}
	f.MedianMs, f.MeanMs, f.MinMs, f.P90Ms, f.CPUMs = walls[len(walls)/2], sum/float64(len(walls)), walls[0], walls[len(walls)*9/10], cpu/float64(len(walls))
	median := func(name string, args ...string) float64 {
		var t []float64
		for range 20 {
			r, err := bench.Command(name, 0, nil, false, args...)
			if err != nil {
				return 0
			}
			t = append(t, r.WallSeconds*1000)
		}
		sort.Float64s(t)
		return t[len(t)/2]
	}
	if tr, err := exec.LookPath("true"); err == nil {
		f.TrueMedianMs = median("true", tr)
	}
	if floor, err := buildGoFloor(); err == nil {
		f.GoFloorMedianMs = median("go floor", floor)
		os.Remove(floor)
	} else {
		fmt.Fprintln(os.Stderr, "bench: the Go floor was not built:", err)
	}
	f.VersionMedianMs = median("convert --version", o.convert, "--version")
	return f, nil
}

// buildGoFloor builds cmd/gofloor as convert is built (static, no cgo)
// into a temporary file and returns its path.
func buildGoFloor() (string, error) {
	fh, err := os.CreateTemp("", "gofloor-*")
	if err != nil {
		return "", err
	}
	fh.Close()
	cmd := exec.Command("go", "build", "-o", fh.Name(), "./internal/bench/cmd/gofloor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(fh.Name())
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return fh.Name(), nil
}

func printReport(c bench.Corpus, files int, size int64, cpus int, fixed Fixed, results []bench.Result, points []Point, targets []Target) {
	sh := func(s bench.Shape) string {
		return fmt.Sprintf("%d sessions (%d subagent files), %.0f MB; session size median %.0f KB, p90 %.0f KB, p99 %.1f MB, max %.1f MB, %d over 10 MB",
			s.Sessions, s.SubagentFiles, float64(s.Bytes)/1e6, float64(s.Median)/1e3, float64(s.P90)/1e3, float64(s.P99)/1e6, float64(s.Max)/1e6, s.Over10MB)
	}
	fmt.Printf("corpus (%d CPUs): %d files, %.0f MB, from %d real seed transcripts (%.1f MB) in %d id-rewritten copies, %d synthetic screenshots\n",
		cpus, files, float64(size)/1e6, c.SeedFiles, float64(c.SeedBytes)/1e6, c.Copies, c.Images)
	fmt.Printf("  Claude Code: %s\n  Codex:       %s\n", sh(c.ClaudeShape), sh(c.CodexShape))
	if c.BigFile != "" {
		fmt.Printf("  big session: %.0f MB\n", float64(c.BigBytes)/1e6)
	}
	fmt.Printf("\nfixed cost: one-line file, start to exit: median %.1f ms, min %.1f ms, p90 %.1f ms, %.1f ms CPU (%d runs; spawning /bin/true: %.1f ms)\n",
		fixed.MedianMs, fixed.MinMs, fixed.P90Ms, fixed.CPUMs, fixed.Runs, fixed.TrueMedianMs)
	fmt.Printf("  in parts (medians): a Go program that does nothing %.1f ms; convert --version (start, every init) %.1f ms; the one-line conversion %.1f ms more\n\n",
		fixed.GoFloorMedianMs, fixed.VersionMedianMs, fixed.MedianMs-fixed.VersionMedianMs)
	fmt.Printf("%-66s %8s %8s %9s %9s %7s %7s %7s %7s\n", "run", "wall s", "cpu s", "MB/s wall", "MB/s cpu", "x base", "x b.cpu", "x cc", "RSS MB")
	for _, r := range results {
		if r.WallSeconds == 0 {
			fmt.Printf("%-66s %s\n", r.Name, r.Note)
			continue
		}
		fmt.Printf("%-66s %8.2f %8.2f %9.1f %9.1f %7.2f %7.2f %7s %7.0f  %s\n", r.Name, r.WallSeconds, r.CPUSeconds, r.MBpsWall, r.MBpsCPU, r.RatioWall, r.RatioCPU, opt(r.RatioTool), r.PeakRSSMB, r.Note)
	}
	fmt.Printf("\nlinearity (convert --jobs 1):\n%8s %9s %9s %8s %8s %10s %10s %12s %12s %8s\n", "fraction", "MB", "files", "wall s", "cpu s", "wall s/MB", "cpu s/MB", "wall ms/file", "cpu ms/file", "RSS MB")
	for _, p := range points {
		fmt.Printf("%8.2f %9.1f %9d %8.2f %8.2f %10.4f %10.4f %12.2f %12.2f %8.0f\n", p.Fraction, float64(p.Bytes)/1e6, p.Files, p.WallSeconds, p.CPUSeconds, p.WallSecPerMB, p.CPUSecPerMB, p.WallMsPerSess, p.CPUMsPerFile, p.PeakRSSMB)
	}
	fmt.Printf("\ntargets (issue #52):\n")
	for _, t := range targets {
		mark := "MET "
		if !t.Met {
			mark = "MISS"
		}
		fmt.Printf("  %s %-92s %8.3f (want %s) %s\n", mark, t.Goal, t.Measured, t.Want, t.Note)
	}
}

func opt(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// ccusageBin returns the ccusage binary, installing ccusage 20.0.24 with its
// Linux binary package into tools with npm when it is not there yet.
func ccusageBin(tools string) (string, error) {
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

// passThrough gives a history file its converter's pass-through paths:
// Claude Code's under projects, Codex's elsewhere (CheckFloor).
func passThrough(projects string) func(file string) leak.Paths {
	cc, _ := converters.Lookup("claude_code")
	cx, _ := converters.Lookup("codex")
	return func(file string) leak.Paths {
		if strings.HasPrefix(file, projects+string(filepath.Separator)) {
			return cc.PassThrough
		}
		return cx.PassThrough
	}
}
