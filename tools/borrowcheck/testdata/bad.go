package bad

import (
	"example/converters"
	"example/view"
)

type state struct {
	name  view.Text
	names []view.Text
	byID  map[string]view.Value
	ok    string
}

var last view.Value

type Record = view.Record

type later struct{ f func() }

func (s *later) record(r Record) {
	t := r.Get("name").Str()
	s.f = func() { _ = t }
	g := func() { _ = t }
	g()
}

// args is what one call gets. borrow:call
type args struct{ v view.Value }

type keeper struct {
	a       args        // kept: a carrier is borrowed itself
	scratch []view.Text // borrow:scratch
}

// In a reader's own package the contract's types are qualified.
type reader struct {
	recs []converters.Record
	file converters.SourceFile
}
