package native

import "github.com/contextreceipts/convert/converters/view"

// ForEach is v.ForEach: the readers' shorthand.
func ForEach(v view.Value, fn func(k, v view.Value) bool) { v.ForEach(fn) }
