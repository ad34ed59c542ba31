// Package kilo reads Kilo's sessions (Kilo-Org/kilocode's CLI, a fork of
// OpenCode): every session in kilo.db, an SQLite database in OpenCode's
// schema (tables session, message and part, message and part data JSON
// as OpenCode's message-v2.ts shapes them), in Kilo's data folder
// (~/.local/share/kilo, which KILO_DATA_DIR moves, as ccusage 20.0.24
// reads it: ryoppippi/ccusage, apps/ccusage/src/adapter/kilo/paths.ts and
// loader.ts). The schemas agree, so the reader is OpenCode's
// (opencode.Variant, registered by converters/opencode/kilo.go, since a
// reader imports no other reader): each session an input of its own, opened read-only
// and query-only as opencode.db is; the receipts name Kilo (converter
// kilo, agent kilo).
//
// Tokens: ccusage's Kilo loader counts an assistant message with tokens
// and a modelID (input, output, reasoning, cache.read, cache.write), once
// per message id; OpenCode's reader counts an assistant message with
// tokens, a model and a provider, once per message id, which Kilo's
// messages all name. Every other mapping, and the audit gaps (AGENTS.md
// and configured instructions load without a record), are OpenCode's:
// see converters/opencode.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `kilo`: Kilo's sessions, every one in `kilo.db` (`~/.local/share/kilo`, moved by
//     `$KILO_DATA_DIR`), an SQLite database in OpenCode's schema. The schemas agree, so the
//     reader is OpenCode's (`opencode.Variant`, below), under Kilo's name: the database is
//     opened read-only and query-only, each session is an input of its own, and the receipts
//     name Kilo. The store marks each line it writes with `$store: kilo`; OpenCode's reader
//     gives a marked line no type and Kilo's reader only marked lines one, so neither takes
//     the other's sessions, whatever their shapes share. Tokens as ccusage 20.0.24 counts
//     Kilo's: an assistant message with tokens and a model, once per message id.
package kilo
