package bench

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
	"golang.org/x/sync/errgroup"
)

// Result is one measured run.
type Result struct {
	Name        string  `json:"name"`
	Bytes       int64   `json:"bytes"`
	Inputs      int     `json:"inputs,omitempty"`    // files the run read (convert: its own count)
	Converted   int     `json:"converted,omitempty"` // inputs convert converted
	Unchanged   int     `json:"unchanged,omitempty"` // inputs skipped as unchanged since the last run (manifest)
	ExitCode    int     `json:"exit_code"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	MBpsWall    float64 `json:"mb_per_s_wall"`
	MBpsCPU     float64 `json:"mb_per_s_cpu"`
	RatioWall   float64 `json:"ratio_wall_to_baseline,omitempty"` // baseline wall / this wall, per byte
	RatioCPU    float64 `json:"ratio_cpu_to_baseline,omitempty"`
	RatioTool   float64 `json:"ratio_wall_to_ccusage,omitempty"` // ccusage wall / this wall, same tree
	PeakRSSMB   float64 `json:"peak_rss_mb,omitempty"`
	SpreadPct   float64 `json:"spread_pct,omitempty"` // slowest run's wall over the fastest's, less one, in % (a row of several runs)
	Note        string  `json:"note,omitempty"`
	Stdout      []byte  `json:"-"`
	Out         string  `json:"-"` // the directory a convert run wrote, for rows that read it
}

// Settle writes the page cache's dirty pages out before a timed run, so
// that one run's outputs are not written back (kernel threads, on the
// same two cores) while the next run is timed. Every row settles, the
// tools' and the baseline's too.
func Settle() { syscall.Sync() }

func (r *Result) rates() {
	if r.WallSeconds > 0 {
		r.MBpsWall = float64(r.Bytes) / 1e6 / r.WallSeconds
	}
	if r.CPUSeconds > 0 {
		r.MBpsCPU = float64(r.Bytes) / 1e6 / r.CPUSeconds
	}
}

// Files lists the .jsonl files under dirs, sorted.
func Files(dirs ...string) ([]string, int64, error) {
	var out []string
	var total int64
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			st, err := e.Info()
			if err != nil {
				return err
			}
			out = append(out, p)
			total += st.Size()
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Baseline is the extract-and-hash ceiling: one goroutine reads every line
// with the reader convert uses, extracts five fields with gjson and hashes
// the line with sha256. Anything convert does costs at least this.
func Baseline(files []string, total int64) (Result, error) {
	Settle()
	cpu0 := selfCPU()
	start := time.Now()
	var sink int
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return Result{}, err
		}
		r := jsonl.NewReader(fh, 1<<30)
		for {
			l, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				fh.Close()
				return Result{}, err
			}
			vals := gjson.GetManyBytes(l.Bytes, "type", "uuid", "sessionId", "timestamp", "message.id")
			sum := sha256.Sum256(l.Bytes)
			sink += len(vals[0].Str) + int(sum[0])
		}
		fh.Close()
	}
	_ = sink
	res := Result{Name: "baseline: line scan + 5 gjson fields + sha256 per line (1 goroutine)", Bytes: total,
		WallSeconds: time.Since(start).Seconds(), CPUSeconds: selfCPU() - cpu0}
	res.rates()
	return res, nil
}

// CheckFloor times the part of a conversion that no faster reader could
// skip, because issue #16 keeps every check: each file hashed whole
// (sha256), each line read with convert's reader, checked as UTF-8,
// validated as JSON with its top-level members indexed (jsonscan.Scan),
// and walked by the leak check's first pass (leak.Input: every string, key
// and number; a pass-through value admitted by its field's shape). pass
// gives each file's pass-through paths (its converter's); workers
// goroutines share the files, as convert's workers do. No record is mapped
// and nothing is written: what convert pays on top is the readers,
// building the outputs, validating and leak-checking them, and writing
// them (WriteFloor).
func CheckFloor(name string, files []string, total int64, workers int, pass func(file string) leak.Paths) (Result, error) {
	Settle()
	cpu0 := selfCPU()
	start := time.Now()
	var lines, raw, next atomic.Int64
	var g errgroup.Group
	for range max(workers, 1) {
		g.Go(func() error {
			var members []jsonscan.Member
			// Each worker takes the next file when it is done with one, as
			// convert's do: a fixed split would leave one waiting on the
			// other's sessions of tens of MB.
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				n, r, err := checkFile(files[i], pass(files[i]), &members)
				if err != nil {
					return err
				}
				lines.Add(n)
				raw.Add(r)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	res := Result{Name: name, Bytes: total, Inputs: len(files), WallSeconds: time.Since(start).Seconds(), CPUSeconds: selfCPU() - cpu0,
		Note: fmt.Sprintf("%d lines, %d raw strings walked", lines.Load(), raw.Load())}
	res.rates()
	return res, nil
}

// checkFile is CheckFloor's work on one file: its lines, and the raw
// strings the walk counted.
func checkFile(path string, paths leak.Paths, members *[]jsonscan.Member) (lines, raw int64, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer fh.Close()
	sum, in := sha256.New(), leak.NewInput()
	r := jsonl.NewReader(io.TeeReader(fh, sum), 0)
	defer r.Release() // as the pipeline does
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		lines++
		*members = (*members)[:0]
		if l.TooLong || !utf8.Valid(l.Bytes) {
			continue
		}
		if object, err := jsonscan.Scan(l.Bytes, members); err == nil && object {
			in.Line(l.Bytes, paths, nil) // ids by shape: a reader's grammar is a few compares more
		}
	}
	sum.Sum(nil)
	return lines, in.RawCount, nil
}

// WriteFloor writes every file of a convert run's output tree (out) again,
// with the same sizes and layout, under dir, the way convert writes them
// (a temporary file, then a rename), in one goroutine, and times it: what
// writing the outputs alone costs on this filesystem, which convert pays
// and ccusage and the baseline (they write nothing) do not. total is the
// input's size, so that its MB/s reads against the other rows. dir is
// left for the caller to remove (see the bench's fresh output folders).
func WriteFloor(out, dir string, total int64) (Result, error) {
	return IOFloor("write floor: the history's outputs written again (temporary file, rename), 1 goroutine", nil, out, dir, total, 1)
}

// IOFloor is the work no implementation of convert can skip, whatever its
// checks cost: every input read whole and hashed (the receipt names each
// input by its sha256), and every file of a convert run's output tree (out)
// written again under dir as WriteFloor writes it. workers goroutines share
// the jobs, taking the next when done, as convert's workers do. Against
// ccusage, which reads and writes nothing else, it bounds from below what a
// conversion of the same tree can take; the check floor adds the checks.
func IOFloor(name string, inputs []string, out, dir string, total int64, workers int) (Result, error) {
	type file struct {
		rel  string
		size int64
	}
	var files []file
	var written int64
	err := filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			return err
		}
		st, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		files = append(files, file{rel, st.Size()})
		written += st.Size()
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	os.RemoveAll(dir)
	data := make([]byte, 1<<20) // read only: what every written file holds
	Settle()
	cpu0 := selfCPU()
	start := time.Now()
	made := map[string]bool{}
	for _, f := range files { // the folders first, so that the writers share no map
		if d := filepath.Dir(filepath.Join(dir, f.rel)); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return Result{}, err
			}
			made[d] = true
		}
	}
	var read, next atomic.Int64
	jobs := len(inputs) + len(files)
	var g errgroup.Group
	for range max(workers, 1) {
		g.Go(func() error {
			buf := make([]byte, 64<<10)
			for i := int(next.Add(1) - 1); i < jobs; i = int(next.Add(1) - 1) {
				if i < len(inputs) {
					n, err := hashFile(inputs[i], buf)
					if err != nil {
						return err
					}
					read.Add(n)
					continue
				}
				f := files[i-len(inputs)]
				if err := writeAgain(filepath.Join(dir, f.rel), f.size, data); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	res := Result{Name: name, Bytes: total, Inputs: len(files), WallSeconds: time.Since(start).Seconds(), CPUSeconds: selfCPU() - cpu0,
		Note: fmt.Sprintf("%d files, %.0f MB", len(files), float64(written)/1e6)}
	if len(inputs) > 0 {
		res.Inputs = len(inputs)
		res.Note = fmt.Sprintf("%d inputs, %.0f MB read and hashed; %d outputs, %.0f MB written", len(inputs), float64(read.Load())/1e6, len(files), float64(written)/1e6)
	}
	res.rates()
	return res, nil
}

// hashFile reads the file at path whole into a sha256, through buf.
func hashFile(path string, buf []byte) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	sum := sha256.New()
	// The file is read through buf as convert reads it (64 KiB at a
	// time), not by its WriteTo, which copies through 32 KiB.
	n, err := io.CopyBuffer(sum, struct{ io.Reader }{fh}, buf)
	sum.Sum(nil)
	return n, err
}

// writeAgain writes size bytes of data to path as convert writes an
// output: a temporary file beside it, then a rename.
func writeAgain(path string, size int64, data []byte) error {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	for n := size; n > 0; n -= min(n, int64(len(data))) {
		if _, err := fh.Write(data[:min(n, int64(len(data)))]); err != nil {
			fh.Close()
			return err
		}
	}
	return errors.Join(fh.Close(), os.Rename(fh.Name(), path))
}

// Median measures n times (at least once) and keeps the run of median wall
// time, every figure of the row from that one run, with the spread of the
// runs in its note: on a shared VM one run's wall time can be a third off
// the next one's, the baseline's too, and a ratio of two single runs
// carries both errors. A failed run ends the series with its error.
func Median(n int, measure func() (Result, error)) (Result, error) {
	rows, err := Interleave(n, func(int) (Result, error) { return measure() })
	if err != nil {
		return Result{}, err
	}
	return rows[0], nil
}

// Interleave measures rows that a ratio compares in rounds, A B C A B C
// ..., n rounds (at least one), and keeps each row's run of median wall
// time with the spread of its runs (Median's rule, row by row). Measured
// one after the other (AAA BBB), a row and the floor it is divided by
// meet different moments of a shared host, and a ratio of the two
// carries the drift between them; in rounds, a busy spell falls on every
// row alike. Each measure gets its round, so that a row that reads
// another's output (the I/O floor rewrites a convert run's tree) reads
// the one of its own round. A failed run ends the series with its error.
func Interleave(n int, rows ...func(round int) (Result, error)) ([]Result, error) {
	runs := make([][]Result, len(rows))
	for round := range max(n, 1) {
		for i, measure := range rows {
			r, err := measure(round)
			if err != nil {
				return nil, err
			}
			runs[i] = append(runs[i], r)
		}
	}
	out := make([]Result, len(rows))
	for i, rs := range runs {
		out[i] = medianOf(rs)
	}
	return out, nil
}

// medianOf is the run of median wall time among runs, its spread (the
// slowest run's wall time over the fastest one's, less one) in
// SpreadPct and its note.
func medianOf(runs []Result) Result {
	if len(runs) == 1 {
		return runs[0]
	}
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b Result) int { return cmp.Compare(a.WallSeconds, b.WallSeconds) })
	m := sorted[len(sorted)/2]
	lo, hi := sorted[0].WallSeconds, sorted[len(sorted)-1].WallSeconds
	if lo > 0 {
		m.SpreadPct = 100 * (hi/lo - 1)
	}
	spread := fmt.Sprintf("median of %d runs (%.2f-%.2f s, spread %.0f%%)", len(runs), lo, hi, m.SpreadPct)
	if m.Note == "" {
		m.Note = spread
	} else {
		m.Note += "; " + spread
	}
	return m
}

func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// Command runs a program, measuring wall and CPU time and peak RSS from the
// kernel's accounting of the child. Its stdout is kept in Result.Stdout
// when keep is set.
func Command(name string, size int64, env []string, keep bool, argv ...string) (Result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout bytes.Buffer
	cmd.Stdout = io.Discard
	if keep {
		cmd.Stdout = &stdout
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), env...)
	Settle()
	start := time.Now()
	err := cmd.Start()
	var hwm int64
	if err == nil {
		done := make(chan struct{})
		polled := make(chan int64)
		go func() { polled <- pollHWM(cmd.Process.Pid, done) }()
		err = cmd.Wait()
		close(done)
		hwm = <-polled
	}
	res := Result{Name: name, Bytes: size, WallSeconds: time.Since(start).Seconds(), Stdout: stdout.Bytes()}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.CPUSeconds = tv(ru.Utime) + tv(ru.Stime)
		}
	}
	res.PeakRSSMB = float64(hwm) / 1024
	res.rates()
	if m := convertedRE.FindStringSubmatch(stderr.String()); m != nil {
		res.Converted, _ = strconv.Atoi(m[1])
		res.Inputs, _ = strconv.Atoi(m[2])
	}
	if m := unchangedRE.FindStringSubmatch(stderr.String()); m != nil {
		res.Unchanged, _ = strconv.Atoi(m[1])
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
		switch res.ExitCode {
		case 1, 3, 4:
		default:
			res.Inputs = 0
		}
		if res.Inputs > 0 {
			// convert's "some inputs failed (3: a leak, 4: a schema), the
			// others converted": the run did its work and is timed all the same.
			res.Note = fmt.Sprintf("exit %d: %d of %d inputs failed (%s)", res.ExitCode, res.Inputs-res.Converted-res.Unchanged, res.Inputs, failureKinds(stderr.String()))
			return res, nil
		}
	}
	if err != nil {
		msg := stderr.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return res, errors.New(strings.TrimSpace(msg) + ": " + err.Error())
	}
	return res, nil
}

// pollHWM reads the peak resident set size (VmHWM, KiB) of process pid
// every 5 ms until done. The kernel's own figure (rusage maxrss) is no
// use here: Go starts children with vfork, and a child's maxrss is at
// least the RSS its parent had then, the whole bench's.
func pollHWM(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			if i := bytes.Index(b, []byte("VmHWM:")); i >= 0 {
				f := strings.Fields(string(b[i+6 : i+6+bytes.IndexByte(b[i+6:], '\n')]))
				if len(f) > 0 {
					if v, err := strconv.ParseInt(f[0], 10, 64); err == nil && v > peak {
						peak = v
					}
				}
			}
		}
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}

var (
	convertedRE = regexp.MustCompile(`(\d+) of (\d+) inputs? converted`)
	unchangedRE = regexp.MustCompile(`(\d+) unchanged since the last run`)
	failedRE    = regexp.MustCompile(`failed +\d+ \(([^)]*)\)`)
)

// failureKinds is convert's own breakdown of failed inputs ("leak 2, ...").
func failureKinds(stderr string) string {
	if m := failedRE.FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return "see stderr"
}
