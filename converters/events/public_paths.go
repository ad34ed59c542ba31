package events

import (
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/contextreceipts/convert/converters/view"
)

// publicInstructionPaths are conventional instruction-file paths that say
// nothing private about a repository; only these (and agent overlays named
// AGENTS.<agent>.md) are written in clear. Every other path is written as
// its digest alone.
var publicInstructionPaths = map[string]bool{
	"AGENTS.md": true, "AGENT.md": true, "CLAUDE.md": true, "CLAUDE.local.md": true,
	".claude/CLAUDE.md": true, "GEMINI.md": true, "CONVENTIONS.md": true,
	".cursorrules": true, ".windsurfrules": true, ".github/copilot-instructions.md": true,
}

// overlayPath is an AGENTS.<agent>.md overlay's name; overlayPathRe is it
// compiled on first use (the schema generator reads only the pattern).
const overlayPath = `^AGENTS\.[a-z][a-z0-9-]{0,31}\.md$`

var overlayPathRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(overlayPath) })

// PublicPathProp is the schema of a path publicPath writes in clear.
func PublicPathProp() Prop {
	var names []any
	for _, p := range slices.Sorted(maps.Keys(publicInstructionPaths)) {
		names = append(names, p)
	}
	return AnyOf(Enum(names...), Prop{"type": "string", "pattern": overlayPath}).
		Doc("in clear only for conventional instruction files and AGENTS.<agent>.md overlays")
}

// PublicPath returns the conventional form of p and whether it may be written
// in clear.
func PublicPath(p view.Text) (string, bool) {
	p = p.TrimPrefix("./")
	if w, ok := p.Word(PublicInstructionPathList...); ok {
		return w, true
	}
	if p.Matches(overlayPathRe()) {
		return p.Own(), true
	}
	return "", false
}

// PublicInstructionPathList is publicInstructionPaths as a word list
// (view.Text.Word), sorted.
var PublicInstructionPathList = slices.Sorted(maps.Keys(publicInstructionPaths))
