package kimicli

import "github.com/contextreceipts/convert/internal/leak"

// kimiIDs are the ids a Kimi CLI session carries (Format.IDs): its
// session id, the lower-case UUID of its folder
// (~/.kimi/sessions/<work dir hash>/<uuid>/wire.jsonl, as ccusage's kimi
// adapter names sessions by it).
var kimiIDs = leak.IDs{leak.UUIDs}
