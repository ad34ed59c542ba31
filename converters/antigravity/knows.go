package antigravity

import "github.com/contextreceipts/convert/internal/leak"

// antigravityIDs are the ids a Google Antigravity conversation database
// carries that a receipt writes in clear (Format.IDs): its conversation
// ids, lower-case UUIDs (conversations/<uuid>.pb and the conversation
// table's id).
var antigravityIDs = leak.IDs{leak.UUIDs}
