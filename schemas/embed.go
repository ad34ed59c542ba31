// Package schemas embeds the JSON Schemas (2020-12) of every output: the
// receipt line envelope, the attributes of each event name, and shared
// definitions. internal/schema compiles them once.
package schemas

import "embed"

// FS holds receipt.schema.json, defs.schema.json and events/<name>.schema.json.
//
//go:embed *.schema.json events/*.schema.json prepare/*.schema.json
var FS embed.FS
