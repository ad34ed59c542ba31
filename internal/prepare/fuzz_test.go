package prepare

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/gate"
)

// FuzzPrepare drives the whole receipt builder with arbitrary queries and
// budgets over a fixed store: it never fails on a valid request, the
// content fits the budget and content_bytes is its UTF-8 length, a receipt
// (when built) fits the byte cap and holds neither the query nor a body,
// and the full output pipeline (schemas, leak check) accepts the result.
func FuzzPrepare(f *testing.F) {
	f.Add("Why did we choose SQLite for the payments ledger?", 8000, true)
	f.Add("é漢字 ledger ledger ledger", 512, true)
	f.Add("", 0, false)
	f.Add(strings.Repeat("retry ", 700), 32768, true)
	// One store for every input: Prepare only reads it.
	st, err := Open(":memory:")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	recs := jsonl(
		mem("project:payments", "mem-ledger", 1, body(900, "SQLite", "ledger", "payments"), body(300, "retry", "ledger")),
		mem("project:shared", "mem-ledger", 2, body(700, "ledger", "WAL")),
		art(FamilyTopic, "project:payments", "topic-db", 1, body(1200, "database", "ledger", "choice")),
		art(FamilyExperience, "project:payments", "exp-1", 1, body(400, "migration", "ledger")),
		codeRec("project:payments", "fp1", "src/ledger/store.go", 10, body(1500, "ledger", "sqlite", "open")),
	)
	if _, err := st.Load(bytes.NewReader(recs), "fixture.jsonl"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string, maxBytes int, withReceipt bool) {
		req := Request{ScopeIDs: []string{"project:payments", "project:shared"}, Query: query, MaxBytes: maxBytes, IncludeReceipt: withReceipt}
		if req.Validate() != nil {
			return // the CLI reports it as a usage error; nothing to assemble
		}
		res, err := NewRuntime(st, fixed(Options{})).Prepare(context.Background(), req)
		if err != nil {
			t.Fatalf("prepare: %v", err)
		}
		c := res.Context
		content := ""
		if c.Content != nil {
			content = *c.Content
		}
		if c.ContentBytes != len(content) || c.ContentBytes > res.MaxBytes || !utf8.ValidString(content) {
			t.Fatalf("content_bytes %d, content %d bytes, max %d", c.ContentBytes, len(content), res.MaxBytes)
		}
		if c.Receipt != nil {
			b, _ := json.Marshal(c.Receipt)
			if len(b) > ReceiptByteCap {
				t.Fatalf("receipt of %d bytes", len(b))
			}
			if q := trimQuery(query); len(q) >= 16 && strings.Contains(string(b), q) && !inVocabulary(q) {
				t.Fatal("the query is in the receipt")
			}
		}
		render(t, st, res, req)
	})
}

// inVocabulary reports whether q is part of a program constant (a query may
// quote the receipt's own schema id; that is no leak).
func inVocabulary(q string) bool {
	for _, w := range gate.Words() {
		if strings.Contains(w, q) {
			return true
		}
	}
	return false
}
