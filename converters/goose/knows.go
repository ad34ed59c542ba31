package goose

import "github.com/contextreceipts/convert/internal/leak"

// gooseIDs are the ids a Goose session carries that a receipt writes in
// clear (Format.IDs): none. Its session ids are the day and a count,
// <yyyymmdd>_<n> (sessions.db: "20261120_1"), which the id shape refuses
// (no id starts with a date: the shape of a birth date or account
// number), so they are written as digests, as they were.
var gooseIDs = leak.IDs{}
