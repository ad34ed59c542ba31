// Package example is the example_agent reader: it registers the converter
// example_agent.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `example_agent`: the contributor guide's example (converters/testdata/guide): one
//     record a line, {"type", "time", ...}; token usage per model.
package example
