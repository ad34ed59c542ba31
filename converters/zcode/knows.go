package zcode

import "github.com/contextreceipts/convert/internal/leak"

// zcodeIDs are the ids a ZCode ledger carries that a receipt writes in
// clear (Format.IDs): none yet. No public source says what ZCode's session
// and usage row ids look like (ccusage 20.0.24's ZCode adapter is read
// from its binary, doc.go), so every id is written as its digest, which
// keys the same trace, until one does.
var zcodeIDs = leak.IDs{}
