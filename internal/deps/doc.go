// Package deps holds the module's import policy: deps_test.go, one table
// of which package may import which, checked over the whole tree by one
// test, as Go's own go/build/deps_test.go does for the standard library.
// It has no code of its own.
package deps
