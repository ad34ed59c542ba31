package converters_test

import (
	"testing"

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
