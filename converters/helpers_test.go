package converters_test

import (
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"

	"github.com/contextreceipts/convert/internal/schema"
)

func loadSchemas(t *testing.T) *schema.Set {
	t.Helper()
	set, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	return set
}
