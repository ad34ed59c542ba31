package convtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// A hunt is the fuzz targets' check (Check) driven by a seeded random
// source instead of the coverage engine: no instrumentation and no corpus
// bookkeeping, so a few thousand inputs per reader take minutes, where CI's
// fuzz budget (make fuzz-ci) reaches a few thousand in all. A disagreement
// that shows once in thousands of inputs can pass one CI run and fail the
// next; a hunt before a submission finds it first (make fuzz-hunt).
//
// In make test a hunt is small and always the same inputs (Grammar's
// streams, Mutations' edits): a regression test. CONVERT_HUNT=N makes it N
// inputs per reader, CONVERT_HUNT_SEED=S other ones. An input that fails
// is kept in the package's testdata/fuzz/<target>/ in the fuzz corpus
// format, where plain go test (and make test) replays it, as a finding of
// make fuzz-ci is.

// huntRounds is how many inputs a hunt tries: CONVERT_HUNT, or def.
func huntRounds(tb testing.TB, def int) int {
	v := os.Getenv("CONVERT_HUNT")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("CONVERT_HUNT=%q: want a count of inputs, at least 1", v)
	}
	return n
}

// huntSource is a hunt's random source: CONVERT_HUNT_SEED, or def.
func huntSource(tb testing.TB, def int64) *rand.Rand {
	if v := os.Getenv("CONVERT_HUNT_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			tb.Fatalf("CONVERT_HUNT_SEED=%q: want an integer", v)
		}
		def = s
	}
	return rand.New(rand.NewSource(def))
}

// keepFinding writes args, a fuzz target's arguments, as an entry of
// testdata/fuzz/<target>/ in the package under test, named by its digest,
// and says where: go test replays it from there until it is fixed.
func keepFinding(tb testing.TB, target string, args ...any) {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case uint8:
			fmt.Fprintf(&b, "byte(%q)\n", rune(v))
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	dir := filepath.Join("testdata", "fuzz", target)
	name := filepath.Join(dir, "hunt-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Logf("the failing input could not be kept: %v", err)
		return
	}
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		tb.Logf("the failing input could not be kept: %v", err)
		return
	}
	tb.Logf("the failing input is kept in %s: go test replays it (%s)", name, target)
}

// Mutations hunts a reader's samples as its FuzzSamples target does: each
// input is a sample file (a one-document file as the one line the pipeline
// reads it as) edited 1 to 4 times (a byte replaced, a JSON token or a
// number inserted, a span deleted or copied elsewhere), held to Check.
//
//	func TestMutations(t *testing.T) { convtest.Mutations(t, "droid") }
func Mutations(t *testing.T, converter string) {
	conv, ok := converters.Lookup(converter)
	if !ok {
		t.Fatalf("no converter %s", converter)
	}
	seeds := sampleSeeds(t, conv)
	if len(seeds) == 0 {
		t.Fatalf("%s has no sample to mutate", converter)
	}
	rng := huntSource(t, 9)
	var cur []byte
	defer func() {
		if t.Failed() && cur != nil {
			keepFinding(t, "FuzzSamples", cur, uint8(0))
		}
	}()
	for range huntRounds(t, 20) {
		cur = mutate(rng, seeds[rng.Intn(len(seeds))])
		Check(t, FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": cur}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}}, cur)
	}
}

// sampleSeeds are a converter's samples as SeedSamples adds them.
func sampleSeeds(tb testing.TB, c converters.Converter) [][]byte {
	var seeds [][]byte
	for _, p := range append(SampleFiles(tb, c), sampleDocuments(tb, c)...) {
		data, err := os.ReadFile(p)
		if err != nil || len(data) >= 1<<20 {
			continue
		}
		if !strings.HasSuffix(p, ".jsonl") {
			var line bytes.Buffer
			if json.Compact(&line, data) != nil {
				continue
			}
			data = append(line.Bytes(), '\n')
		}
		seeds = append(seeds, data)
	}
	return seeds
}

// mutationTokens are what a mutation inserts: JSON's punctuation, an MCP
// name's prefix, digits, a line break.
var mutationTokens = []string{"\"", ",", ":", "{", "}", "[", "]", "__", "mcp__", "0", "\\", " ", "\n", "1234567890", "null"}

// mutate returns a copy of seed edited 1 to 4 times.
func mutate(rng *rand.Rand, seed []byte) []byte {
	b := append([]byte(nil), seed...)
	for m := 1 + rng.Intn(4); m > 0 && len(b) > 2; m-- {
		at := rng.Intn(len(b))
		switch rng.Intn(5) {
		case 0:
			b[at] = byte(rng.Intn(256))
		case 1:
			b = append(b[:at], append([]byte(mutationTokens[rng.Intn(len(mutationTokens))]), b[at:]...)...)
		case 2:
			n := rng.Intn(min(40, len(b)-at))
			b = append(b[:at], b[at+n:]...)
		case 3:
			n := rng.Intn(min(60, len(b)-at))
			chunk := append([]byte(nil), b[at:at+n]...)
			to := rng.Intn(len(b))
			b = append(b[:to], append(chunk, b[to:]...)...)
		case 4:
			b[at] = mutationTokens[rng.Intn(len(mutationTokens))][0]
		}
	}
	return b
}
