package leak

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
)

// foldPaths has a field of every shape, at the top, nested, under arrays
// and as a "*." count, so the equivalence below passes through every
// branch of the walker's first pass.
var foldPaths = Paths{
	"sessionId": UUID, "id": ID, "timestamp": Time, "version": Version,
	"message.model": Model, "message.content.#.name": Label, "cwd": Name,
	"ts": EpochMs, "*.input_tokens": Count, "usage.output_tokens": Count,
	"tags.#": Label, "message.content.#.type": Label,
}

var foldLines = []string{
	`{"sessionId":"0b3c9a4e-5d6f-4a7b-8c9d-0e1f2a3b4c5d","type":"user","version":"2.1.42","cwd":"CANARY-user/p","message":{"role":"user","content":"CANARY-prompt \u00e9\n"}}`,
	`{"id":"msg_01ABCdef","message":{"model":"claude-opus-4-5","content":[{"type":"text","text":"x"},{"type":"tool_use","name":"Bash","input":{"command":"echo CANARY-arg 1234567"}}]},"usage":{"input_tokens":12,"output_tokens":3456789,"cache":{"input_tokens":42}}}`,
	`{"tags":["alpha","CANARY tag with spaces",7,{"tags":["nested"]}],"ts":1767225600000,"n":-12345678,"f":1.5e3,"t":true,"z":null,"e":[]}`,
	`{"k\"ey":{"":""},"a\u0062c":"v\\\"q","message":{"content":[[1,2,[3]],{"type":"x\ty"}]}}`,
	`{"version":"4111-1111-1111-1111","id":"sk-ant-api03-CANARY","timestamp":"not a time","cwd":12345678}`,
	`{}`,
}

// state is what a first pass leaves: every field Discard restores.
func state(in *Input) string {
	in.freeze()
	return fmt.Sprint(slices.Clone(in.pass), slices.Clone(in.nums), in.RawCount, in.RawBytes)
}

func viaLine(seed *Input, lines []string, k *Knowledge) *Input {
	in := &Input{seed: seed.seed}
	for _, l := range lines {
		in.Line([]byte(l), foldPaths, k)
	}
	return in
}

func viaScan(t testing.TB, seed *Input, lines []string, k *Knowledge) *Input {
	in := &Input{seed: seed.seed}
	for _, l := range lines {
		v := in.Visitor(foldPaths, k)
		if _, err := jsonscan.ScanVisit([]byte(l), nil, v); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		v.Commit()
	}
	return in
}

// foldKnows are the readers the equivalence is held for: none (ids by
// shape), one whose grammar admits the lines' msg_ id and UUID, and one
// whose grammar is empty (every id raw).
var foldKnows = []*Knowledge{nil, {IDs: IDs{UUIDs, {Prefixes: []string{"msg_"}, Alphabet: Base62, Min: 8, Max: 8}}}, {}}

func TestVisitorIsLine(t *testing.T) {
	seed := NewInput()
	for _, k := range foldKnows {
		for _, l := range foldLines {
			if got, want := state(viaScan(t, seed, []string{l}, k)), state(viaLine(seed, []string{l}, k)); got != want {
				t.Errorf("%s\nscan %s\nline %s", l, got, want)
			}
		}
		if got, want := state(viaScan(t, seed, foldLines, k)), state(viaLine(seed, foldLines, k)); got != want {
			t.Errorf("all lines: scan %s\nline %s", got, want)
		}
	}
	// The grammar decides: each reader learns a different input.
	if a, b := state(viaLine(seed, foldLines, foldKnows[1])), state(viaLine(seed, foldLines, foldKnows[2])); a == b {
		t.Errorf("a reader of no ids learns what one of msg_ ids and UUIDs does: %s", a)
	}
}

// A line discarded (skipped, or refused half way through its scan) admits
// nothing, and does not make a later line's value look admitted already
// (the admitted cache is taken back too).
func TestVisitorDiscard(t *testing.T) {
	seed := NewInput()
	in := &Input{seed: seed.seed}
	first := `{"sessionId":"0b3c9a4e-5d6f-4a7b-8c9d-0e1f2a3b4c5d","n":7654321,"s":"CANARY"}`
	v := in.Visitor(foldPaths, nil)
	if _, err := jsonscan.ScanVisit([]byte(first), nil, v); err != nil {
		t.Fatal(err)
	}
	v.Discard()
	broken := `{"version":"2.1.42","x":[1,2,`
	v = in.Visitor(foldPaths, nil)
	if _, err := jsonscan.ScanVisit([]byte(broken), nil, v); err == nil {
		t.Fatal("a broken line scanned")
	}
	v.Discard()
	if got, want := state(in), state(&Input{seed: seed.seed}); got != want {
		t.Fatalf("after discards: %s, want an empty input %s", got, want)
	}
	v = in.Visitor(foldPaths, nil)
	if _, err := jsonscan.ScanVisit([]byte(first), nil, v); err != nil {
		t.Fatal(err)
	}
	v.Commit()
	if !in.has("0b3c9a4e-5d6f-4a7b-8c9d-0e1f2a3b4c5d") {
		t.Fatal("a value admitted on a discarded line was not added when its line was kept")
	}
	if got, want := state(in), state(viaLine(seed, []string{first}, nil)); got != want {
		t.Fatalf("scan %s\nline %s", got, want)
	}
}

// FuzzVisitorIsLine: on any line Scan accepts, the first pass folded into
// the scan learns exactly what Input.Line learns walking it.
func FuzzVisitorIsLine(f *testing.F) {
	for _, l := range foldLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if _, err := jsonscan.Scan(doc, nil); err != nil || !json.Valid(doc) {
			return
		}
		seed := NewInput()
		for _, k := range foldKnows {
			if got, want := state(viaScan(t, seed, []string{string(doc)}, k)), state(viaLine(seed, []string{string(doc)}, k)); got != want {
				t.Fatalf("%q\nscan %s\nline %s", doc, got, want)
			}
		}
	})
}
