// Command benchprep times convert prepare at request time on generated
// stores (make bench-prepare). For each size it writes an artifact store of
// that many artifacts in one scope (through prepare's own loader, in a
// temporary folder, removed afterwards), then runs the convert binary as a
// host would, once per query and mode, and prints the median wall time of
// each mode and its growth from one size to the next. It prints the median
// CPU time (user + system) beside it: on a machine shared with other work
// the wall time is mostly waiting for a core, the CPU time much less so. Nothing it generates
// is committed; the vocabulary and the queries come from a seeded PRNG, so
// two runs time the same work.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/prepare"
)

const scope = "project:bench"

// modes are the request shapes timed, as a host calls them.
var modes = []struct{ name, flags string }{
	{"plain", ""},
	{"--vector", "--vector"},
	{"gate+vector+rerank", "--recall-gate --vector --rerank lexical"},
}

func main() {
	bin := flag.String("convert", "bin/convert", "the convert binary to time")
	sizes := flag.String("sizes", "10000,100000", "store sizes in artifacts, comma-separated")
	queries := flag.Int("queries", 5, "distinct queries per mode")
	runs := flag.Int("runs", 3, "runs of each query (after one warm-up run)")
	keep := flag.String("dir", "", "folder for the stores (default: a temporary one, removed afterwards)")
	flag.Parse()
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "benchprep-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	v := newVocab()
	qs := v.queries(*queries)
	type row struct {
		size     int
		med, cpu []time.Duration
	}
	var rows []row
	fmt.Printf("convert prepare, one scope; median wall time of %d queries x %d runs per mode (the binary, started as a host starts it)\n", len(qs), *runs)
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-sizes: %q is not a size", f))
		}
		db := filepath.Join(dir, fmt.Sprintf("store-%d.db", n))
		t0 := time.Now()
		if err := generate(db, n, v); err != nil {
			fail(err)
		}
		fi, _ := os.Stat(db)
		fmt.Printf("\n%d artifacts: store generated in %s (%d MB)\n", n, time.Since(t0).Round(time.Second), fi.Size()>>20)
		r := row{size: n}
		for _, m := range modes {
			var ts, cs []time.Duration
			for _, q := range qs {
				args := []string{"prepare", "--store", db, "--scope", scope, "--query", q, "--include-receipt"}
				if m.flags != "" {
					args = append(args, strings.Fields(m.flags)...)
				}
				if _, _, err := once(*bin, args); err != nil { // warm-up: the page cache, as a host's second call has it
					fail(err)
				}
				for range *runs {
					d, c, err := once(*bin, args)
					if err != nil {
						fail(err)
					}
					ts, cs = append(ts, d), append(cs, c)
				}
			}
			slices.Sort(ts)
			slices.Sort(cs)
			med := ts[len(ts)/2]
			r.med, r.cpu = append(r.med, med), append(r.cpu, cs[len(cs)/2])
			fmt.Printf("  %-20s wall median %6.1f ms (min %6.1f, max %6.1f); cpu median %6.1f ms (min %6.1f)\n",
				m.name, ms(med), ms(ts[0]), ms(ts[len(ts)-1]), ms(cs[len(cs)/2]), ms(cs[0]))
		}
		rows = append(rows, r)
		if *keep == "" {
			os.Remove(db)
		}
	}
	for _, k := range []struct {
		what string
		of   func(row) []time.Duration
	}{{"wall", func(r row) []time.Duration { return r.med }}, {"cpu", func(r row) []time.Duration { return r.cpu }}} {
		fmt.Printf("\n| median %s |", k.what)
		for _, r := range rows {
			fmt.Printf(" %d |", r.size)
		}
		for i := 1; i < len(rows); i++ {
			fmt.Printf(" growth %d->%d |", rows[i-1].size, rows[i].size)
		}
		fmt.Printf("\n|---|%s\n", strings.Repeat("---|", 2*len(rows)-1))
		for j, m := range modes {
			fmt.Printf("| %s |", m.name)
			for _, r := range rows {
				fmt.Printf(" %.1f ms |", ms(k.of(r)[j]))
			}
			for i := 1; i < len(rows); i++ {
				fmt.Printf(" %.2fx |", float64(k.of(rows[i])[j])/float64(k.of(rows[i-1])[j]))
			}
			fmt.Println()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchprep:", err)
	os.Exit(1)
}

// once runs convert and returns its wall and CPU time; a failed run is an
// error.
func once(bin string, args []string) (time.Duration, time.Duration, error) {
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return d, 0, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args[:4], " "), err, stderr.String())
	}
	return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// vocab is a Zipf-distributed vocabulary of made-up words: a word's
// document frequency grows with the store, as real vocabularies do.
type vocab struct {
	words []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newVocab() *vocab {
	rng := rand.New(rand.NewPCG(51, 2026))
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "bu", "da", "fe", "go", "hi", "ju", "pa"}
	seen := map[string]bool{}
	var words []string
	for len(words) < 30000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &vocab{words: words, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(words)-1)), rng: rng}
}

func (v *vocab) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// queries are four-word questions of mid-frequency words (ranks 100-3000):
// the specific words a host's prompt shares with the store.
func (v *vocab) queries(n int) []string {
	rng := rand.New(rand.NewPCG(7, 51))
	var out []string
	for range n {
		var ws []string
		for range 4 {
			r := 100 + int(math.Exp(rng.Float64()*math.Log(30)))*100
			ws = append(ws, v.words[min(r, len(v.words)-1)])
		}
		out = append(out, "how do we handle "+strings.Join(ws, " ")+"?")
	}
	return out
}

// generate writes a store of n artifacts in one scope: 50% atomic memory
// (three entries each), 20% topic memory, 15% experience, 14% code and 16
// profile artifacts, each body 20-60 words.
func generate(db string, n int, v *vocab) error {
	os.Remove(db)
	st, err := prepare.Open(db)
	if err != nil {
		return err
	}
	defer st.Close()
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		enc := json.NewEncoder(w)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		body := func() string { return v.text(20 + rng.IntN(41)) }
		for i := range n {
			var rec map[string]any
			switch k := i % 100; {
			case i < 16:
				rec = map[string]any{"kind": "profile", "scope_id": scope, "artifact_id": fmt.Sprint("profile-", i), "revision": 1, "body": body()}
			case k < 50:
				var es []map[string]string
				for e := range 3 {
					es = append(es, map[string]string{"entry_id": fmt.Sprint("e", e), "entry_version_id": fmt.Sprint("e", e, ".v1"), "body": body()})
				}
				rec = map[string]any{"kind": "atomic-memory", "scope_id": scope, "artifact_id": fmt.Sprint("mem-", i), "revision": 1, "entries": es}
			case k < 70:
				rec = map[string]any{"kind": "topic-memory", "scope_id": scope, "artifact_id": fmt.Sprint("topic-", i), "revision": 1, "body": body()}
			case k < 85:
				rec = map[string]any{"kind": "experience", "scope_id": scope, "artifact_id": fmt.Sprint("exp-", i), "revision": 1, "body": body()}
			default:
				rec = map[string]any{"kind": "code", "scope_id": scope, "fingerprint": "bench-repo", "path": fmt.Sprintf("pkg/f%d.go", i), "start_line": 1,
					"body": strings.ReplaceAll(body(), " ", "\n")}
			}
			if err := enc.Encode(rec); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Flush())
	}()
	_, err = st.Load(pr, "generated.jsonl")
	return err
}
