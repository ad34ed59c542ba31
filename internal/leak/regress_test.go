package leak

import "testing"

// Found by FuzzScenarioConverters' reference check: a short raw value that
// is a part of two untyped output strings was only reported at the last
// one (the short index kept one string per key). In the pipeline a
// stderr warning's finding is withheld rather than failing the input, so a
// receipt string sharing the part with a later warning passed.
func TestShortPartInTwoOutputs(t *testing.T) {
	outs := NewOutputs(map[string]bool{})
	outs.Add("alpha xq", "receipt line 1")
	outs.AddMessage("beta xq", "stderr message 1")
	chk := outs.NewChecker()
	chk.Raw("xq", 3)
	got := map[string]bool{}
	for _, f := range chk.Findings() {
		got[f.Where] = true
	}
	for _, w := range []string{"receipt line 1", "stderr message 1"} {
		if !got[w] {
			t.Errorf("no finding at %s; findings %v", w, chk.Findings())
		}
	}
}

// Found by FuzzNativeLogs (a Codex agent nickname holding a key): a value
// at a pass-through path that fits the path's shape but looks like a
// secret was taken for a pass-through value by the walker (fits, not
// Admit), so a piece of it copied into an output was never probed.
func TestSecretInPassThroughFieldIsRaw(t *testing.T) {
	const v = "CANARY3nick-sk-ant-api03-xxxxxxxxxxxxxxxxxxxx"
	if !Name.fits(v) || Name.Admit(v) {
		t.Fatalf("the case needs a value that fits Name and is not admitted: fits %v, admit %v", Name.fits(v), Name.Admit(v))
	}
	doc := []byte(`{"agent_nickname":"` + v + `"}`)
	pass := Paths{"agent_nickname": Name}
	in := NewInput()
	in.Line(doc, pass, nil)
	outs := NewOutputs(map[string]bool{})
	outs.Add("planted "+v[5:21]+" here", "receipt line 1")
	chk := outs.Check(in)
	chk.Line(doc, 1, pass, nil)
	if len(chk.Findings()) == 0 {
		t.Fatal("a piece of a secret-looking value in a pass-through field was not found")
	}
}
