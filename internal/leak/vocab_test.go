package leak

// The leak package's own tests run without the gate, which installs the
// program's vocabulary (SetVocabulary): they know the label examples of
// the kinds and nothing else, so a label they admit is one of these.
// TestLabelsAreAClosedVocabulary (labels_test.go) holds the label shape to
// the program's real vocabulary.
func init() {
	known := map[string]bool{}
	for _, w := range kinds[Label].admits {
		known[w] = true
	}
	SetVocabulary(func(s string) bool { return known[s] })
}
