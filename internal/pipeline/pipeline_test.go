package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/klauspost/compress/zstd"
	"github.com/tidwall/gjson"
)

func repoPath(p string) string { return filepath.Join("..", "..", p) }

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func summaryOf(t *testing.T, rec []byte) gjson.Result {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(rec, []byte{'\n'}), []byte{'\n'})
	s := gjson.ParseBytes(lines[len(lines)-1])
	if s.Get("name").Str != "convert.summary" {
		t.Fatalf("last line is %q, not the summary", s.Get("name").Str)
	}
	return s.Get("attributes")
}

// TestSummaryAccountsForEveryLine: lines = records + skipped + blank.
func TestSummaryAccountsForEveryLine(t *testing.T) {
	for _, s := range []string{"samples/session/basic.jsonl", "samples/session/bad_junk_lines.jsonl", "samples/session/bad_truncated_last_line.jsonl", "samples/mcp_tool_search/basic.jsonl"} {
		res := Convert(Input{Path: repoPath(s), Rel: filepath.Base(s)}, Options{})
		if res.Err != nil {
			t.Fatalf("%s: %v", s, res.Err)
		}
		a := summaryOf(t, res.Receipt)
		lines, rec, skip, blank := a.Get(`convert\.input\.lines`).Int(), a.Get(`convert\.input\.records`).Int(), a.Get(`convert\.input\.lines\.skipped`).Int(), a.Get(`convert\.input\.lines\.blank`).Int()
		if lines != rec+skip+blank || lines == 0 {
			t.Errorf("%s: lines %d != records %d + skipped %d + blank %d", s, lines, rec, skip, blank)
		}
		var reasons int64
		a.ForEach(func(k, v gjson.Result) bool {
			if strings.HasPrefix(k.Str, "convert.input.skipped.") {
				reasons += v.Int()
			}
			return true
		})
		if reasons != skip {
			t.Errorf("%s: skip reasons add up to %d, skipped is %d", s, reasons, skip)
		}
	}
}

// TestDeterministicAcrossRunsAndJobs converts the samples twice, with one
// worker and with four, and requires byte-identical outputs and stderr.
func TestDeterministicAcrossRunsAndJobs(t *testing.T) {
	ins, err := Expand([]string{repoPath("samples")})
	if err != nil {
		t.Fatal(err)
	}
	runOnce := func(jobs int) (map[string][]byte, string) {
		out := t.TempDir()
		var stderr bytes.Buffer
		Run(context.Background(), ins, RunOptions{Out: out, Jobs: jobs}, &stderr)
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return files, stderr.String()
	}
	a, ea := runOnce(1)
	b, eb := runOnce(4)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d vs %d output files", len(a), len(b))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Errorf("%s differs between runs", k)
		}
	}
	if ea != eb {
		t.Errorf("stderr differs between 1 and 4 jobs:\n%s\n---\n%s", ea, eb)
	}
	for k := range a {
		if strings.Contains(k, ".tmp-") {
			t.Errorf("temporary file left behind: %s", k)
		}
	}
}

// TestHugeLines: a 9 MiB line is converted when under the cap, skipped and
// counted when over it; memory stays bounded by the cap either way.
func TestHugeLines(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("CANARY huge body ", (9<<20)/17)
	body := `{"type":"session.start","time":"2026-06-01T00:00:00Z","session_id":"s-huge","agent":"claude-code"}` + "\n" +
		`{"type":"context.input","time":"2026-06-01T00:00:01Z","kind":"memory","source_text":"` + big + `","delivered_text":"` + big + `"}` + "\n" +
		`{"type":"tool.call","time":"2026-06-01T00:00:02Z","name":"Read"}` + "\n"
	p := writeFile(t, dir, "huge.jsonl", body)

	res := Convert(Input{Path: p, Rel: "huge.jsonl"}, Options{Converter: "session"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if a := summaryOf(t, res.Receipt); a.Get(`convert\.output\.events`).Int() != 1 || a.Get(`convert\.input\.lines\.skipped`).Int() != 0 {
		t.Errorf("under the cap the huge line must convert: %s", a.Raw)
	}
	res = Convert(Input{Path: p, Rel: "huge.jsonl"}, Options{Converter: "session", MaxLine: 1 << 20})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	a := summaryOf(t, res.Receipt)
	if a.Get(`convert\.input\.skipped\.line_too_long`).Int() != 1 || a.Get(`convert\.input\.records`).Int() != 2 {
		t.Errorf("over the cap the huge line must be skipped and counted: %s", a.Raw)
	}
	if len(res.Diags) != 1 || !strings.Contains(res.Diags[0], "huge.jsonl:2: session: skipped line: line_too_long") {
		t.Errorf("diags = %q", res.Diags)
	}
	for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
		if bytes.Contains(out, []byte("CANARY")) {
			t.Fatal("canary in output")
		}
	}
}

// TestWriteFailureLeavesNothing: when the outputs cannot be written the
// input fails and no file, temporary or final, is left behind.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	blocker := writeFile(t, dir, "out", "a file where the output directory should be")
	ins := []Input{{Path: repoPath("samples/session/basic.jsonl"), Rel: "basic.jsonl"}}
	var stderr bytes.Buffer
	oc := Run(context.Background(), ins, RunOptions{Out: blocker}, &stderr)
	if oc.Failed != 1 || oc.Converted != 0 {
		t.Fatalf("outcome %+v, stderr %s", oc, stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

// TestKeyedHashing: keyed mode changes every digest, records the key id,
// never the key, and is deterministic.
func TestKeyedHashing(t *testing.T) {
	key := []byte("ca8b22d0db83a22db163b560b3e4e51527e533d31d067b614a0c33c4d2df8432")
	h, err := receipt.NewKeyed(key)
	if err != nil {
		t.Fatal(err)
	}
	p := repoPath("samples/mcp_tool_search/basic.jsonl")
	plain := Convert(Input{Path: p, Rel: "basic.jsonl"}, Options{})
	keyed := Convert(Input{Path: p, Rel: "basic.jsonl"}, Options{Hash: h})
	again := Convert(Input{Path: p, Rel: "basic.jsonl"}, Options{Hash: h})
	if plain.Err != nil || keyed.Err != nil {
		t.Fatal(plain.Err, keyed.Err)
	}
	if !bytes.Equal(keyed.Receipt, again.Receipt) {
		t.Error("keyed mode is not deterministic")
	}
	if bytes.Contains(keyed.Receipt, []byte(`"mcp.server.name_hash":"sha256:`)) || !bytes.Contains(keyed.Receipt, []byte(`"mcp.server.name_hash":"hmac-sha256:`)) {
		t.Error("keyed mode must key identifier digests")
	}
	a := summaryOf(t, keyed.Receipt)
	if a.Get(`convert\.hash\.mode`).Str != "hmac-sha256" || a.Get(`convert\.hash\.key_id`).Str != h.KeyID() {
		t.Errorf("summary: %s", a.Raw)
	}
	if bytes.Contains(keyed.Receipt, key) || bytes.Contains(keyed.Trace, key) {
		t.Error("the key itself reached an output")
	}
	if _, err := receipt.NewKeyed([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

// TestDetectAndExpand covers directory walking and output naming.
func TestDetectAndExpand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b/two.jsonl", "{}\n")
	writeFile(t, dir, "a/one.jsonl", "{}\n")
	writeFile(t, dir, "a/notes.txt", "ignored\n")
	ins, err := Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(ins[0].Rel, " ", ins[1].Rel, " ", len(ins))
	if got != "a/one.jsonl b/two.jsonl 2" {
		t.Errorf("expand = %s", got)
	}
	if _, err := Expand([]string{filepath.Join(dir, "a/one.jsonl"), filepath.Join(dir, "a/../a/one.jsonl")}); err == nil {
		t.Error("two inputs with the same outputs were accepted")
	}
	const id = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	if OutputName("x/"+id+".jsonl", ".otel.json") != FolderDir(receipt.Hasher{}, "x")+"/"+id+".otel.json" || OutputName("stdin", ".otel.json") != "stdin.otel.json" {
		t.Error("outName")
	}
	// A name that is not id-shaped is written as its digest (issue #40).
	for _, name := range []string{"x/CANARY-alice-notes.jsonl", "x/canary_notes.jsonl.zst", "CANARY", "5551234567.jsonl", "session-4111111111111111.jsonl"} {
		if o := OutputName(name, ".otel.json"); strings.Contains(strings.ToLower(o), "canary") || strings.Contains(o, "555123") || strings.Contains(o, "411111") || !strings.Contains(o, "input-") {
			t.Errorf("OutputName(%s) = %s", name, o)
		}
	}
}

// TestCompressedInputs: gzip and zstd inputs (sniffed, whatever their name)
// give the same receipt as the plain file, except for the input's own
// digest, size and compression, which describe the file on disk.
func TestCompressedInputs(t *testing.T) {
	plainPath := repoPath("samples/mcp_tool_search/basic.jsonl")
	raw, err := os.ReadFile(plainPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zst := enc.EncodeAll(raw, nil)
	cases := map[string][]byte{"basic.jsonl.gz": gz.Bytes(), "basic.jsonl.zst": zst, "misnamed.jsonl": zst}
	plain := Convert(Input{Path: plainPath, Rel: "basic.jsonl"}, Options{})
	if plain.Err != nil {
		t.Fatal(plain.Err)
	}
	strip := func(rec []byte) string {
		lines := strings.Split(strings.TrimSpace(string(rec)), "\n")
		return strings.Join(lines[:len(lines)-1], "\n") // all but the summary
	}
	for name, data := range cases {
		p := writeFile(t, dir, name, string(data))
		res := Convert(Input{Path: p, Rel: name}, Options{})
		if res.Err != nil {
			t.Fatalf("%s: %v", name, res.Err)
		}
		if strip(res.Receipt) != strip(plain.Receipt) {
			t.Errorf("%s: events differ from the plain input's", name)
		}
		a := summaryOf(t, res.Receipt)
		if a.Get(`convert\.input\.bytes`).Int() != int64(len(data)) || a.Get(`convert\.input\.compression`).Str == "" {
			t.Errorf("%s: summary does not describe the file on disk: %s", name, a.Raw)
		}
	}
	const rollout = "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	if OutputName("sessions/"+rollout+".jsonl.zst", ".otel.json") != "sessions/"+rollout+".otel.json" {
		t.Error("OutputName keeps the compression suffix")
	}
}

// TestIncrementalRuns: a second run into the same directory converts
// nothing, a changed input is converted again, --force converts everything.
func TestIncrementalRuns(t *testing.T) {
	src := t.TempDir()
	raw, _ := os.ReadFile(repoPath("samples/session/basic.jsonl"))
	writeFile(t, src, "a.jsonl", string(raw))
	writeFile(t, src, "b.jsonl", string(raw))
	out := t.TempDir()
	ins, err := Expand([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	run := func(force bool) Outcome {
		var stderr bytes.Buffer
		return Run(context.Background(), ins, RunOptions{Out: out, Force: force}, &stderr)
	}
	if oc := run(false); oc.Converted != 2 {
		t.Fatalf("first run: %+v", oc)
	}
	if oc := run(false); oc.Converted != 0 || oc.Unchanged != 2 {
		t.Fatalf("second run converted again: %+v", oc)
	}
	// Same size, new content: the digest catches it even with a new mtime.
	changed := strings.Replace(string(raw), "sess-9c1e", "sess-9c1f", 1)
	writeFile(t, src, "b.jsonl", changed)
	if oc := run(false); oc.Converted != 1 || oc.Unchanged != 1 {
		t.Fatalf("after a change: %+v", oc)
	}
	// The same bytes under a new mtime (a copy, a checkout): not converted
	// again, and the manifest learns the mtime, so no later run reads the
	// file to know it.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(src, "a.jsonl"), later, later); err != nil {
		t.Fatal(err)
	}
	if oc := run(false); oc.Converted != 0 || oc.Unchanged != 2 {
		t.Fatalf("after a touch: %+v", oc)
	}
	man := loadManifest(out, receipt.Hasher{})
	if e := man.Inputs[man.pathID("a.jsonl")]; len(e.Files) != 1 || e.Files[0].MtimeNS != later.UnixNano() {
		t.Errorf("the manifest kept the old mtime: %+v", e.Files)
	}
	os.Remove(filepath.Join(out, OutputName("a.jsonl", ".receipt.ndjson")))
	if oc := run(false); oc.Converted != 1 {
		t.Fatalf("after deleting an output: %+v", oc)
	}
	os.Remove(filepath.Join(out, OutputName("b.jsonl", ".otel.jsonl")))
	if oc := run(false); oc.Converted != 1 || oc.Unchanged != 1 {
		t.Fatalf("after deleting a trace: %+v", oc)
	}
	if oc := run(true); oc.Converted != 2 {
		t.Fatalf("--force: %+v", oc)
	}
}

// TestInterruptLeavesNothing: a cancelled batch converts nothing more and
// leaves no file, temporary or final.
func TestInterruptLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	ins, _ := Expand([]string{repoPath("samples/session")})
	var stderr bytes.Buffer
	oc := Run(ctx, ins, RunOptions{Out: out}, &stderr)
	if oc.Interrupted != len(ins) || oc.Converted != 0 {
		t.Fatalf("outcome %+v", oc)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// TestFailedRenameLeavesNothing: when the trace cannot be put in place the
// receipt written just before it is taken back, and no temporary remains.
func TestFailedRenameLeavesNothing(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, OutputName("basic.jsonl", ".otel.jsonl"), "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	ins := []Input{{Path: repoPath("samples/session/basic.jsonl"), Rel: "basic.jsonl"}}
	var stderr bytes.Buffer
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Failed != 1 {
		t.Fatalf("outcome %+v", oc)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != OutputName("basic.jsonl", ".otel.jsonl") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestOutputsAreNeverWrittenInPlace: outputs are written to a temporary
// file and renamed over the final name, so a reader never sees a partial
// file. Proved with an output name that points at /dev/full: writing in
// place fails (no space left), a rename simply replaces the link.
func TestOutputsAreNeverWrittenInPlace(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("/dev/full is a Linux device") // the machines this project runs on have it
	}
	out := t.TempDir()
	rec := filepath.Join(out, OutputName("basic.jsonl", ".receipt.ndjson"))
	if err := os.Symlink("/dev/full", rec); err != nil {
		t.Fatal(err)
	}
	ins := []Input{{Path: repoPath("samples/session/basic.jsonl"), Rel: "basic.jsonl"}}
	var stderr bytes.Buffer
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Converted != 1 {
		t.Fatalf("outcome %+v: %s", oc, stderr.String())
	}
	st, err := os.Lstat(rec)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		t.Fatalf("the receipt was not put in place by a rename: %v %v", st, err)
	}
}
