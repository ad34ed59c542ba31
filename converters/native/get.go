package native

import "github.com/contextreceipts/convert/converters/view"

// Get is v.Get(path): the readers' shorthand.
func Get(v view.Value, path string) view.Value { return v.Get(path) }

// ForEach is v.ForEach: the readers' shorthand.
func ForEach(v view.Value, fn func(k, v view.Value) bool) { v.ForEach(fn) }
