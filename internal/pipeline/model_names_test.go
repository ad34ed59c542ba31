package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// TestProviderModelNames: a session whose model is named as a provider
// names it (a path with '/', a version after '@') converts, with the name
// in the receipt; the schema used to refuse it (exit 4) while the screen
// admitted it.
func TestProviderModelNames(t *testing.T) {
	src, err := os.ReadFile(testshared.Repo(t, "samples", "codex", "basic", "sessions", "2026", "03", "14", "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"openai/gpt-oss-120b", "openrouter/anthropic/claude-sonnet-4", "claude-opus-4-5@20251101"} {
		data := bytes.ReplaceAll(src, []byte(`"model":"gpt-5.3-codex"`), []byte(`"model":"`+model+`"`))
		if bytes.Equal(data, src) {
			t.Fatal("the sample's model was not found")
		}
		p := filepath.Join(t.TempDir(), "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
		if res.Err != nil {
			t.Errorf("%s: %v", model, res.Err)
			continue
		}
		if !bytes.Contains(res.Receipt, []byte(`"gen_ai.request.model":"`+model+`"`)) {
			t.Errorf("%s: the receipt does not name the model", model)
		}
	}
}

// TestModelNamesByKnowledge: a model name no catalog knows (a deployment
// named after a person) is written as its digest, and in clear under
// --reveal names; the leak check, in convert run and in convert leakcheck
// alike, admits it only as the writer writes it: with names revealed.
// Without, its copy in an output is a leak (the check admitted it by its
// shape). The session converts both ways.
func TestModelNamesByKnowledge(t *testing.T) {
	src, err := os.ReadFile(testshared.Repo(t, "samples", "codex", "basic", "sessions", "2026", "03", "14", "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const person = "alice-kowalczyk-finetune"
	data := bytes.ReplaceAll(src, []byte(`"model":"gpt-5.3-codex"`), []byte(`"model":"`+person+`"`))
	if bytes.Equal(data, src) {
		t.Fatal("the sample's model was not found")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	out := filepath.Join(dir, "copied.txt")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("chat "+person+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, reveal := range []bool{false, true} {
		res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Reveal: reveal})
		if res.Err != nil {
			t.Fatalf("reveal %v: %v", reveal, res.Err)
		}
		if inClear := bytes.Contains(res.Receipt, []byte(`"gen_ai.request.model":"`+person+`"`)); inClear != reveal {
			t.Errorf("reveal %v: the model in clear %v", reveal, inClear)
		}
		fds, err := LeakCheckFiles([]string{p}, "", []string{out}, reveal)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, fd := range fds {
			found[fd.Where.String()] = true
		}
		if found[out+" line 1"] == reveal {
			t.Errorf("reveal %v: its copy refused %v, want %v (findings %v)", reveal, found[out+" line 1"], !reveal, fds)
		}
	}
}
