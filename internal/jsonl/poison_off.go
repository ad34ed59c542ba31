//go:build !convertpoison

package jsonl

// Poison is false in the normal build: see poison_on.go.
const Poison = false
