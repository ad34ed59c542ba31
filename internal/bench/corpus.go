// Package bench builds a benchmark corpus shaped like a real history out of
// real public transcripts (../shared/corpus-seed) and measures convert
// against baselines on it. It backs `make bench`; nothing here is used by
// convert itself.
package bench

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/tidwall/gjson"
)

// Spec sets the corpus.
type Spec struct {
	Seeds      string // directory with claude-code/*.jsonl and codex/*.jsonl
	TotalBytes int64  // the history: Claude Code and Codex sessions, about this much in all
	BigBytes   int64  // plus one Claude Code session of about this size (0: none), in its own tree
	Seed       uint64 // the random seed: the same Spec and seeds give the same bytes
}

// Corpus describes what Generate wrote.
type Corpus struct {
	Dir      string   `json:"dir"`
	Claude   string   `json:"claude_config_dir"` // CLAUDE_CONFIG_DIR: projects/ under it
	Codex    string   `json:"codex_home"`        // CODEX_HOME: sessions/ under it
	Big      string   `json:"big_config_dir,omitempty"`
	BigFile  string   `json:"big_file,omitempty"`
	OneLine  string   `json:"one_line_file"`
	Projects []string `json:"-"` // the project directories, for subsets

	ClaudeShape Shape `json:"claude_code"`
	CodexShape  Shape `json:"codex"`
	BigBytes    int64 `json:"big_file_bytes"`
	Images      int   `json:"synthetic_images"`
	SeedFiles   int   `json:"seed_files"`
	SeedBytes   int64 `json:"seed_bytes"`
	Copies      int   `json:"seed_copies"` // id-rewritten copies of seed line ranges
}

// Shape is the size distribution of one agent's part of the corpus.
type Shape struct {
	Sessions      int     `json:"sessions"`
	SubagentFiles int     `json:"subagent_files,omitempty"`
	Files         int     `json:"files"`
	Bytes         int64   `json:"bytes"`
	Min           int64   `json:"min_session_bytes"`
	P10           int64   `json:"p10_session_bytes"`
	Median        int64   `json:"median_session_bytes"`
	P90           int64   `json:"p90_session_bytes"`
	P99           int64   `json:"p99_session_bytes"`
	Max           int64   `json:"max_session_bytes"`
	Over10MB      int     `json:"sessions_over_10mb"`
	MeanBytes     float64 `json:"mean_session_bytes"`
	sizes         []int64
}

func (s *Shape) add(session int64, files, subagents int) {
	s.Sessions++
	s.Files += files
	s.SubagentFiles += subagents
	s.Bytes += session
	s.sizes = append(s.sizes, session)
}

func (s *Shape) finish() {
	if len(s.sizes) == 0 {
		return
	}
	sort.Slice(s.sizes, func(i, j int) bool { return s.sizes[i] < s.sizes[j] })
	q := func(p float64) int64 { return s.sizes[int(p*float64(len(s.sizes)-1))] }
	s.Min, s.P10, s.Median, s.P90, s.P99, s.Max = q(0), q(0.1), q(0.5), q(0.9), q(0.99), q(1)
	for _, n := range s.sizes {
		if n >= 10<<20 {
			s.Over10MB++
		}
	}
	s.MeanBytes = float64(s.Bytes) / float64(len(s.sizes))
}

// seed is one real transcript, as lines.
type seed struct {
	name    string
	lines   [][]byte
	session string // its session id (sessionId, or the Codex session_meta id)
	version string // Claude Code version, for synthetic lines
	bytes   int64
	prompts []int // lines that are a typed user prompt: where a subagent transcript starts
}

func loadSeeds(dir string) (claude, codex []*seed, err error) {
	for _, part := range []struct {
		sub  string
		into *[]*seed
	}{{"claude-code", &claude}, {"codex", &codex}} {
		files, _ := filepath.Glob(filepath.Join(dir, part.sub, "*.jsonl"))
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			s := &seed{name: filepath.Base(f), bytes: int64(len(b))}
			for _, l := range bytes.Split(b, []byte("\n")) {
				if len(bytes.TrimSpace(l)) == 0 {
					continue
				}
				s.lines = append(s.lines, l)
				if r := gjson.GetManyBytes(l, "type", "message.content", "isMeta"); r[0].Str == "user" && r[1].Type == gjson.String && !r[2].Bool() {
					s.prompts = append(s.prompts, len(s.lines)-1)
				}
				if s.session == "" {
					if part.sub == "codex" {
						if gjson.GetBytes(l, "type").Str == "session_meta" {
							s.session = gjson.GetBytes(l, "payload.id").Str
						}
					} else {
						s.session = gjson.GetBytes(l, "sessionId").Str
						s.version = gjson.GetBytes(l, "version").Str
					}
				}
			}
			if s.session == "" || len(s.lines) < 2 {
				return nil, nil, fmt.Errorf("seed %s: no session id", f)
			}
			*part.into = append(*part.into, s)
		}
	}
	if len(claude) == 0 || len(codex) == 0 {
		return nil, nil, fmt.Errorf("no seeds in %s/claude-code and %s/codex (see ../shared/corpus-seed/SOURCES.md)", dir, dir)
	}
	return claude, codex, nil
}

// gen cuts seeds into sessions with a seeded generator.
type gen struct {
	r      *rand.Rand
	c      *Corpus
	buf    []byte
	claude []*seed
	codex  []*seed
}

func (g *gen) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *gen) key() (k [16]byte) {
	for i := range k {
		k[i] = byte(g.r.Uint32())
	}
	return k
}

// logNormal draws a session size: median m, shape sigma, clamped to [lo, hi].
func (g *gen) logNormal(m, sigma float64, lo, hi int64) int64 {
	v := int64(m * math.Exp(sigma*g.r.NormFloat64()))
	return min(max(v, lo), hi)
}

// logUniform draws from [lo, hi] evenly on a log scale.
func (g *gen) logUniform(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return int64(float64(lo) * math.Pow(float64(hi)/float64(lo), g.r.Float64()))
}

// file is one output transcript being written.
type file struct {
	w   *bufio.Writer
	fh  *os.File
	n   int64
	sid string
}

func create(path, sid string) (*file, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &file{w: bufio.NewWriterSize(fh, 1<<20), fh: fh, sid: sid}, nil
}

func (f *file) write(b []byte) {
	f.w.Write(b)
	f.w.WriteByte('\n')
	f.n += int64(len(b)) + 1
}

func (f *file) close() error {
	err := f.w.Flush()
	if cerr := f.fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// cut writes about size bytes of seed lines to f: a run of consecutive
// lines from a random seed and start; past the seed's end, the next copy
// (fresh ids, another seed) carries on, so big sessions are concatenated
// copies. Every session id in them becomes f's. sidechain marks the lines
// as a subagent's (isSidechain true, agentId set).
func (g *gen) cut(f *file, seeds []*seed, size int64, codex bool, agent string) {
	s := seeds[g.r.IntN(len(seeds))]
	start := 0
	switch {
	case agent != "" && len(s.prompts) > 0:
		start = s.prompts[g.r.IntN(len(s.prompts))] // a subagent starts with its prompt
	case g.r.IntN(2) == 0:
		start = g.r.IntN(len(s.lines)) // a resumed session, or one cut short by a checkpoint
	}
	first := true
	for f.n < size {
		g.c.Copies++
		rw := newRewriter(g.key(), map[string]string{s.session: f.sid})
		if codex {
			if first {
				f.write(g.rewrite(rw, s.lines[0], ""))
			}
			start = max(start, 1) // the session_meta line opens a rollout once
		}
		for i := start; i < len(s.lines) && f.n < size; i++ {
			f.write(g.rewrite(rw, s.lines[i], agent))
			if !codex && agent == "" && g.r.IntN(6000) == 0 {
				f.write(g.image(f.sid, s.version)) // a pasted screenshot: the seeds have one
			}
		}
		s, start, first = seeds[g.r.IntN(len(seeds))], 0, false
	}
}

var sidechainFalse = []byte(`"isSidechain":false`)

func (g *gen) rewrite(rw *rewriter, l []byte, agent string) []byte {
	g.buf = rw.line(g.buf[:0], l)
	if agent == "" {
		return g.buf
	}
	b := bytes.Replace(g.buf, sidechainFalse, []byte(`"isSidechain":true`), 1)
	if i := bytes.Index(b, agentKey); i >= 0 {
		s := i + len(agentKey)
		e := bytes.IndexByte(b[s:], '"')
		if e < 0 {
			return b
		}
		e += s
		return append(append(append([]byte(nil), b[:s]...), agent...), b[e:]...)
	}
	if len(b) > 0 && b[0] == '{' {
		return append([]byte(`{"agentId":"`+agent+`",`), b[1:]...)
	}
	return b
}

// image is a synthetic user line with a base64 PNG of 100 to 700 KB, one
// in about 6000 main-session lines (about 2% of the bytes): pasted
// screenshots are common in real histories and rare in the seeds.
func (g *gen) image(sid, version string) []byte {
	g.c.Images++
	raw := make([]byte, 100<<10+g.r.IntN(600<<10))
	for i := range raw {
		raw[i] = byte(g.r.Uint32())
	}
	line, _ := json.Marshal(map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/srv/dev/app",
		"sessionId": sid, "version": version, "gitBranch": "main", "type": "user", "uuid": g.uuid(), "timestamp": "2026-05-01T10:00:00.000Z",
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(raw)}},
			map[string]any{"type": "text", "text": "what is wrong in this screenshot?"}}}})
	return line
}

// claudeSession writes one Claude Code session of about size bytes into
// project, sometimes with subagent transcripts in the 2.1 layout
// (<session>/subagents/agent-<id>.jsonl). It returns the bytes written.
func (g *gen) claudeSession(project string, size int64, subagents bool) (int64, error) {
	sid := g.uuid()
	f, err := create(filepath.Join(project, sid+".jsonl"), sid)
	if err != nil {
		return 0, err
	}
	g.cut(f, g.claude, size, false, "")
	total := f.n
	if err := f.close(); err != nil {
		return 0, err
	}
	nsub := 0
	if subagents && g.r.IntN(4) == 0 {
		nsub = 1 + g.r.IntN(4)
	}
	for range nsub {
		agent := fmt.Sprintf("a%016x", g.r.Uint64())
		sf, err := create(filepath.Join(project, sid, "subagents", "agent-"+agent+".jsonl"), sid)
		if err != nil {
			return 0, err
		}
		g.cut(sf, g.claude, g.logNormal(25<<10, 1.2, 2<<10, 2<<20), false, agent)
		total += sf.n
		if err := sf.close(); err != nil {
			return 0, err
		}
	}
	g.c.ClaudeShape.add(total, 1+nsub, nsub)
	return total, nil
}

func (g *gen) codexRollout(root string, day int, size int64) (int64, error) {
	sid := g.uuid()
	d := fmt.Sprintf("2026/%02d/%02d", 1+day/28%12, 1+day%28)
	name := fmt.Sprintf("rollout-%s-%s-%02dT%02d-%02d-%02d-%s.jsonl", d[:4], d[5:7], 1+day%28, g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), sid)
	f, err := create(filepath.Join(root, "sessions", d, name), sid)
	if err != nil {
		return 0, err
	}
	g.cut(f, g.codex, size, true, "")
	g.c.CodexShape.add(f.n, 1, 0)
	return f.n, f.close()
}

// fill writes sessions until their bytes reach budget: a few of 10-100 MB
// (tail of them, at random places) and a long-tailed body (log-normal,
// median 30 KB, clamped to 2 KB-10 MB).
func (g *gen) fill(budget int64, tail int, write func(size int64) (int64, error)) error {
	var at []int64 // where in the budget the big ones come
	for range tail {
		at = append(at, g.r.Int64N(max(budget*3/4, 1)))
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	var sum int64
	for sum < budget {
		size := g.logNormal(30<<10, 1.5, 2<<10, 10<<20)
		if len(at) > 0 && sum >= at[0] {
			size = g.logUniform(10<<20, min(100<<20, max(10<<20, budget/4/int64(tail))))
			at = at[1:]
		}
		n, err := write(size)
		if err != nil {
			return err
		}
		sum += n
	}
	return nil
}

// specFile records the Spec a corpus was built from: a corpus with the
// same Spec and seeds is reused, not rebuilt.
const specFile = ".spec.json"

// generatorVersion is part of that record: bump it when Generate writes
// other bytes for the same Spec.
const generatorVersion = 3

// Generate writes the corpus under dir, or reuses the one there when it was
// built from the same Spec and seeds.
func Generate(dir string, spec Spec) (Corpus, error) {
	claude, codex, err := loadSeeds(spec.Seeds)
	if err != nil {
		return Corpus{}, err
	}
	want := specStamp(spec, claude, codex)
	if c, ok := reuseCorpus(dir, want); ok {
		return c, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return Corpus{}, err
	}
	c := Corpus{Dir: dir, Claude: filepath.Join(dir, "claude"), Codex: filepath.Join(dir, "codex")}
	g := &gen{r: rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15)), c: &c, claude: claude, codex: codex}
	for _, s := range append(append([]*seed(nil), claude...), codex...) {
		c.SeedFiles++
		c.SeedBytes += s.bytes
	}
	// The order of the steps is part of the corpus: each draws from g.r.
	if err := g.history(spec.TotalBytes); err != nil {
		return c, err
	}
	if spec.BigBytes > 0 {
		if err := g.bigSession(spec.BigBytes); err != nil {
			return c, err
		}
	}
	if err := g.oneLine(); err != nil {
		return c, err
	}
	c.ClaudeShape.finish()
	c.CodexShape.finish()
	c.Projects, _ = filepath.Glob(filepath.Join(c.Claude, "projects", "*"))
	rec, _ := json.Marshal(c)
	return c, os.WriteFile(filepath.Join(dir, specFile), append(append(want, '\n'), rec...), 0o644)
}

// specStamp is the record of what a corpus is built from: the generator's
// version, the Spec (without the seeds' folder) and each seed's name and
// size.
func specStamp(spec Spec, claude, codex []*seed) []byte {
	stamp := struct {
		Version int
		Spec    Spec
		Seeds   []string
	}{Version: generatorVersion, Spec: spec}
	stamp.Spec.Seeds = ""
	for _, s := range append(append([]*seed(nil), claude...), codex...) {
		stamp.Seeds = append(stamp.Seeds, fmt.Sprintf("%s:%d", s.name, s.bytes))
	}
	want, _ := json.Marshal(stamp)
	return want
}

// reuseCorpus returns the corpus under dir when its record says it was
// built from want.
func reuseCorpus(dir string, want []byte) (Corpus, bool) {
	prev, err := os.ReadFile(filepath.Join(dir, specFile))
	if err != nil {
		return Corpus{}, false
	}
	var c Corpus
	if i := bytes.IndexByte(prev, '\n'); i > 0 && bytes.Equal(prev[:i], want) && json.Unmarshal(prev[i+1:], &c) == nil {
		c.Projects, _ = filepath.Glob(filepath.Join(c.Claude, "projects", "*"))
		return c, true
	}
	return Corpus{}, false
}

// history writes the history of total bytes: Claude Code sessions, three
// quarters of it over 40 projects, and Codex rollouts, the rest, one
// folder per day.
func (g *gen) history(total int64) error {
	c := g.c
	ccBudget := total * 3 / 4
	tail := 0 // sessions of 10-100 MB: one from 50 MB of Claude Code on, one more per 300 MB
	if ccBudget >= 50<<20 {
		tail = 1 + int(ccBudget/(300<<20))
	}
	err := g.fill(ccBudget, tail, func(size int64) (int64, error) {
		project := filepath.Join(c.Claude, "projects", fmt.Sprintf("-srv-dev-src-project-%02d", g.r.IntN(40)))
		return g.claudeSession(project, size, true)
	})
	if err != nil {
		return err
	}
	cxBudget := total - ccBudget
	return g.fill(cxBudget, int(cxBudget/(300<<20)), func(size int64) (int64, error) {
		return g.codexRollout(c.Codex, c.CodexShape.Sessions%90, size)
	})
}

// bigSession writes the one big Claude Code session, of size bytes, in a
// project of its own.
func (g *gen) bigSession(size int64) error {
	c := g.c
	c.Big = filepath.Join(c.Dir, "big")
	project := filepath.Join(c.Big, "projects", "-srv-dev-src-monorepo")
	sid := g.uuid()
	c.BigFile = filepath.Join(project, sid+".jsonl")
	f, err := create(c.BigFile, sid)
	if err != nil {
		return err
	}
	g.cut(f, g.claude, size, false, "")
	c.BigBytes = f.n
	return f.close()
}

// oneLine writes the fixed cost's input: one user line of a seed, with
// fresh ids.
func (g *gen) oneLine() error {
	c := g.c
	sid := g.uuid()
	c.OneLine = filepath.Join(c.Dir, "oneline", sid+".jsonl")
	f, err := create(c.OneLine, sid)
	if err != nil {
		return err
	}
	for _, l := range g.claude[0].lines {
		if gjson.GetBytes(l, "type").Str == "user" {
			f.write(newRewriter(g.key(), map[string]string{g.claude[0].session: sid}).line(nil, l))
			break
		}
	}
	if err := f.close(); err != nil {
		return err
	}
	if f.n == 0 {
		return errors.New("no user line in the first Claude Code seed")
	}
	return nil
}
