package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
)

// TestLeakCheckWithholdsWarnings: a warning that would carry raw input is
// withheld, told by its finding's Where (stderr message N), while an honest
// warning stays and a leaking error message fails the check.
func TestLeakCheckWithholdsWarnings(t *testing.T) {
	in := Input{Path: "../../samples/session/basic.jsonl", Rel: "basic.jsonl"}
	conv, ok := converters.Lookup("session")
	if !ok {
		t.Fatal("no session converter")
	}
	f := &file{ctx: context.Background(), in: in, path: in.Path, rel: in.Rel, conv: conv, state: conv.New(converters.Env{}),
		stats: Stats{SkipReasons: map[string]int64{}, UnknownTypes: map[string]bool{}}, input: leak.NewInput()}
	if err := f.read(); err != nil {
		t.Fatal(err)
	}
	honest := in.Path + ":3: session: skipped line: malformed_json"
	f.diags = []string{honest, in.Path + ":4: session: CANARY-repo-acme-ledger-private", honest + " again"}
	if _, err := f.leakCheck(nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	withheld := in.Path + ": session: warning withheld: it would have contained raw input"
	if f.diags[0] != honest || f.diags[1] != withheld || f.diags[2] != honest+" again" {
		t.Fatalf("diags %q", f.diags)
	}
	_, err := f.leakCheck(nil, nil, []string{"record rejected: CANARY-repo-acme-ledger-private"}, nil)
	var le *LeakError
	if !errors.As(err, &le) || !strings.Contains(le.Error(), "in error message 1") {
		t.Fatalf("a leaking error message: %v", err)
	}
}
