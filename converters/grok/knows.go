package grok

import "github.com/contextreceipts/convert/internal/leak"

// grokIDs are the ids a Grok Build session carries (Format.IDs): its
// session id, a lower-case UUID (sessions/<cwd>/<session id>/, as
// ccusage's grok adapter paths.rs finds it; the ACP stream's sessionId).
var grokIDs = leak.IDs{leak.UUIDs}
