package bench

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Result is one measured run.
type Result struct {
	Name        string  `json:"name"`
	Bytes       int64   `json:"bytes"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	MBpsWall    float64 `json:"mb_per_s_wall"`
	MBpsCPU     float64 `json:"mb_per_s_cpu"`
	RatioWall   float64 `json:"ratio_wall_to_baseline,omitempty"`
	RatioCPU    float64 `json:"ratio_cpu_to_baseline,omitempty"`
	PeakRSSMB   float64 `json:"peak_rss_mb,omitempty"`
	Note        string  `json:"note,omitempty"`
}

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

func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// Command runs a program, measuring wall and CPU time and peak RSS from the
// kernel's accounting of the child.
func Command(name string, bytes int64, env []string, argv ...string) (Result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	err := cmd.Run()
	res := Result{Name: name, Bytes: bytes, WallSeconds: time.Since(start).Seconds()}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.CPUSeconds = tv(ru.Utime) + tv(ru.Stime)
			res.PeakRSSMB = float64(ru.Maxrss) / 1024
		}
	}
	res.rates()
	if err != nil {
		msg := stderr.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return res, errors.New(strings.TrimSpace(msg) + ": " + err.Error())
	}
	return res, nil
}
