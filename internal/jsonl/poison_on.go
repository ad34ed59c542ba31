//go:build convertpoison

package jsonl

// Poison is set by the convertpoison build tag: every line's bytes are
// overwritten once it has been converted (Scribble), and every read buffer
// when its reader is released, so that a converter keeping a view of a
// line past it writes different outputs (make test-poison compares them
// with the normal build's).
const Poison = true
