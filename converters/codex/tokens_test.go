package codex_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/tidwall/gjson"

	_ "github.com/contextreceipts/convert/converters/all"
)

// usage is a session's token totals in the receipt's terms (OpenAI's:
// input counts cached tokens in).
type usage struct{ in, cached, out int64 }

// receiptUsage sums a receipt's gen_ai.token_usage.summarized events.
func receiptUsage(receipt []byte) usage {
	var u usage
	for _, l := range bytes.Split(receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "gen_ai.token_usage.summarized" {
			continue
		}
		a := e.Get("attributes")
		u.in += a.Get(`gen_ai\.usage\.input_tokens`).Int()
		u.cached += a.Get(`gen_ai\.usage\.cache_read\.input_tokens`).Int()
		u.out += a.Get(`gen_ai\.usage\.output_tokens`).Int()
	}
	return u
}

// rolloutTruth is what a rollout says it used, read here apart from the
// reader: the sum, over the runs of running totals, of each run's last
// total_token_usage. A run ends where a total is smaller than the one
// before it (a process that counted from zero again).
func rolloutTruth(t *testing.T, path string) usage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum, run usage
	var runTotal int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		tot := gjson.GetBytes(sc.Bytes(), "payload.info.total_token_usage")
		if !tot.IsObject() || gjson.GetBytes(sc.Bytes(), "payload.type").Str != "token_count" {
			continue
		}
		if n := tot.Get("total_tokens").Int(); n < runTotal {
			sum = usage{sum.in + run.in, sum.cached + run.cached, sum.out + run.out}
		}
		run = usage{tot.Get("input_tokens").Int(), tot.Get("cached_input_tokens").Int(), tot.Get("output_tokens").Int()}
		runTotal = tot.Get("total_tokens").Int()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return usage{sum.in + run.in, sum.cached + run.cached, sum.out + run.out}
}

// restarted is the sample rollout with a process that counted from zero
// again after its first resume: the totals after the second session_meta
// are less the first run's last total, so they go down there.
func restarted(t *testing.T, sample string) string {
	t.Helper()
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	metas := 0
	for i, l := range lines {
		if gjson.Get(l, "type").Str == "session_meta" {
			metas++
		}
		if metas < 2 || gjson.Get(l, "payload.type").Str != "token_count" || !gjson.Get(l, "payload.info").IsObject() {
			continue
		}
		// The first run ended at 25000 in (12000 cached), 700 out.
		tot := gjson.Get(l, "payload.info.total_token_usage")
		in, cached, out := tot.Get("input_tokens").Int()-25000, tot.Get("cached_input_tokens").Int()-12000, tot.Get("output_tokens").Int()-700
		from := `"total_token_usage":` + tot.Raw
		to := fmt.Sprintf(`"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`,
			in, cached, out, tot.Get("reasoning_output_tokens").Int()-150, in+out)
		lines[i] = strings.Replace(l, from, to, 1)
	}
	p := filepath.Join(t.TempDir(), "sessions", filepath.Base(sample))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResumedRolloutTokens: a rollout resumed in VS Code or the desktop app
// (Codex 0.142-0.146, samples/codex/v0145_resumed) writes its session_meta
// again at each resume (twice in a row at the last one) while
// total_token_usage keeps running. The session's usage is the rollout's
// last cumulative total, as ccusage counts it: a repeated session_meta is
// no new baseline. A baseline restarts only where the totals go down (a
// process that counted from zero again): then the runs' last totals add.
func TestResumedRolloutTokens(t *testing.T) {
	sample, err := filepath.Abs("../../samples/codex/v0145_resumed/sessions/2026/10/05/rollout-2026-10-05T08-00-00-019f3a00-aaaa-7bbb-8ccc-000000000020.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want usage // also what rolloutTruth reads, checked below
	}{
		{"running totals across four session_metas", sample, usage{58000, 40000, 1600}},
		{"a process that counted from zero again", restarted(t, sample), usage{25000 + 33000, 12000 + 28000, 700 + 900}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if truth := rolloutTruth(t, tc.path); truth != tc.want {
				t.Fatalf("the rollout says %+v, the case %+v", truth, tc.want)
			}
			ins, err := pipeline.Expand([]string{tc.path})
			if err != nil || len(ins) != 1 {
				t.Fatalf("%d inputs, %v", len(ins), err)
			}
			res := pipeline.Convert(ins[0], pipeline.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
				if bytes.Contains(bytes.ToUpper(out), []byte("CANARY")) {
					t.Fatal("a canary reached an output")
				}
			}
			if got := receiptUsage(res.Receipt); got != tc.want {
				t.Errorf("session usage %+v, want %+v", got, tc.want)
			}
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				if gaps := gjson.GetBytes(l, `attributes.convert\.audit_gaps`); gaps.Exists() && gaps.Raw != "[]" {
					t.Errorf("audit gaps %s", gaps.Raw)
				}
			}
		})
	}
}
