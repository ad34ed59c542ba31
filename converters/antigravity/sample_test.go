package antigravity_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"google.golang.org/protobuf/encoding/protowire"
)

// The test databases are SQL scripts (testdata/*.sql) whose blobs are
// written here, field by field, with the numbers ccusage 20.0.24 reads
// (doc.go): TestScripts holds the scripts to this text, and -update
// rewrites them. Every raw string in a blob carries CANARY.

// msg is a protobuf message being written.
type msg []byte

func (m msg) varint(num protowire.Number, v uint64) msg {
	m = protowire.AppendTag(m, num, protowire.VarintType)
	return protowire.AppendVarint(m, v)
}

func (m msg) bytes(num protowire.Number, b []byte) msg {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m msg) text(num protowire.Number, s string) msg { return m.bytes(num, []byte(s)) }

// stamp is a google.protobuf.Timestamp.
func stamp(sec uint64) msg { return msg{}.varint(1, sec).varint(2, 250_000_000) }

// use is a ModelUsage: the counts by field number, then the ids.
type use struct {
	input, totalOut, cacheWrite, cacheRead, reasoning, visible, provider uint64
	messageID, responseID                                                string
}

func (u use) msg() msg {
	m := msg{}
	for _, f := range []struct {
		n protowire.Number
		v uint64
	}{{2, u.input}, {3, u.totalOut}, {4, u.cacheWrite}, {5, u.cacheRead}, {6, u.provider}, {9, u.reasoning}, {10, u.visible}} {
		if f.v > 0 {
			m = m.varint(f.n, f.v)
		}
	}
	if u.messageID != "" {
		m = m.text(7, u.messageID)
	}
	if u.responseID != "" {
		m = m.text(11, u.responseID)
	}
	return m
}

// step is a steps row: plain columns, the metadata (nil: NULL) and a
// payload ccusage does not read (the step's content, CANARY).
type step struct {
	typ, status, sub int
	meta             msg
	payload          string
}

type conversation struct {
	file  string // the database's name
	note  string
	traj  msg
	steps []step // nil: no steps table
	gens  []msg
}

const t0 = 1795168800 // 2026-11-20T10:00:00Z

// conversations are the test databases.
var conversations = []conversation{{
	file: "6f1d7e2a-3c4b-4d5e-8f90-a1b2c3d4e5f6.db",
	note: "A conversation of the IDE: a prompt, three model responses (one retried), a command, a subagent's step; the first response's usage recorded again, larger, in gen_metadata (merged by its response id), and a generation of no identity.",
	traj: msg{}.text(1, "file:///home/gus/src/CANARY-proj").bytes(2, stamp(t0)).text(3, "CANARY-branch"),
	steps: []step{
		{typ: 14, status: 3, meta: msg{}.bytes(1, stamp(t0+1)), payload: "CANARY-prompt fix the failing test"},
		{typ: 15, status: 3, meta: msg{}.bytes(8, stamp(t0+4)).
			bytes(9, use{input: 1200, totalOut: 300, cacheRead: 4000, reasoning: 100, visible: 200, provider: 24, responseID: "CANARY-resp-1"}.msg()).
			bytes(24, msg{}.varint(1, 1018).varint(7, 24).text(12, "gemini-3-flash-a")), payload: "CANARY-plan"},
		{typ: 21, status: 3, meta: msg{}.bytes(8, stamp(t0+6)), payload: "CANARY-cmd go test ./..."},
		{typ: 15, status: 3, meta: msg{}.bytes(8, stamp(t0+9)).
			bytes(9, use{input: 1500, visible: 400, reasoning: 50, cacheRead: 5000, messageID: "CANARY-msg-2", responseID: "CANARY-resp-2"}.msg()).
			bytes(24, msg{}.text(12, "gemini-3-flash-a")).
			bytes(28, msg{}.bytes(2, use{input: 900, visible: 20, responseID: "CANARY-resp-2-retry"}.msg())), payload: "CANARY-fix"},
		{typ: 15, status: 3, sub: 1, meta: msg{}.bytes(8, stamp(t0+12)), payload: "CANARY-subagent task"},
		{typ: 15, status: 3, meta: nil, payload: "CANARY-final answer"},
	},
	gens: []msg{
		msg{}.bytes(1, msg{}.bytes(4, use{input: 1200, totalOut: 320, cacheRead: 4000, reasoning: 100, visible: 220, responseID: "CANARY-resp-1"}.msg()).
			bytes(9, msg{}.bytes(4, stamp(t0+4))).text(19, "gemini-3-flash-a")),
		msg{}.bytes(1, msg{}.bytes(4, use{input: 300, visible: 50, cacheWrite: 70}.msg()).
			bytes(9, msg{}.bytes(4, stamp(t0+15))).text(19, "gemini-3.1-pro-high")),
		msg{}.bytes(1, msg{}.bytes(4, use{}.msg()).text(19, "gemini-3.1-pro-high")),
	},
}, {
	file:  "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d.db",
	note:  "A conversation as ccusage's own tests make one: gen_metadata and the trajectory's metadata, no steps table; a model known by its id only.",
	traj:  msg{}.bytes(2, stamp(t0+600)).text(3, "CANARY-branch"),
	steps: nil,
	gens: []msg{
		msg{}.bytes(1, msg{}.varint(3, 1018).bytes(4, use{input: 42, totalOut: 10, visible: 10, messageID: "CANARY-msg-b"}.msg()).
			bytes(17, msg{}.bytes(2, use{input: 40, totalOut: 12, responseID: "CANARY-resp-b-retry"}.msg()))),
	},
}}

// script is a conversation's SQL.
func (c conversation) script() string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- Written by sample_test.go (go test ./converters/antigravity -run TestScripts -update): %s\n", c.note)
	b.WriteString("-- An Antigravity conversation database, the tables ccusage 20.0.24 reads; every string in a blob holds CANARY.\n")
	b.WriteString("CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY, data BLOB);\n")
	fmt.Fprintf(&b, "INSERT INTO trajectory_metadata_blob VALUES ('main', X'%s');\n", hex.EncodeToString(c.traj))
	b.WriteString("CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB, size INTEGER);\n")
	for i, g := range c.gens {
		fmt.Fprintf(&b, "INSERT INTO gen_metadata VALUES (%d, X'%s', %d);\n", i, hex.EncodeToString(g), len(g))
	}
	if c.steps != nil {
		b.WriteString("CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, has_subtrajectory INTEGER, metadata BLOB, step_payload BLOB);\n")
		for i, s := range c.steps {
			meta := "NULL"
			if s.meta != nil {
				meta = "X'" + hex.EncodeToString(s.meta) + "'"
			}
			fmt.Fprintf(&b, "INSERT INTO steps VALUES (%d, %d, %d, %d, %s, X'%s');\n", i, s.typ, s.status, s.sub, meta,
				hex.EncodeToString(msg{}.text(1, s.payload)))
		}
	}
	return b.String()
}

// TestScripts holds testdata/*.sql to the conversations above.
func TestScripts(t *testing.T) {
	for _, c := range conversations {
		path := filepath.Join("testdata", strings.TrimSuffix(c.file, ".db")+".sql")
		want := c.script()
		if convtest.Updating() {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is not what sample_test.go writes (go test ./converters/antigravity -run TestScripts -update)", path)
		}
	}
}

// layout writes the test databases under dir/conversations, as
// Antigravity keeps them, and returns that folder.
func layout(t *testing.T, dir string) string {
	t.Helper()
	conv := filepath.Join(dir, "conversations")
	for _, c := range conversations {
		convtest.SQLiteFrom(t, strings.TrimSuffix(c.file, ".db")+".sql", filepath.Join(conv, c.file))
	}
	return conv
}
