package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/schemas"
)

var (
	schemaOnce sync.Once
	schemaDoc  *jsonschema.Schema
	schemaErr  error
)

// Validate checks the report document against schemas/report.schema.json.
func Validate(r *Report) error {
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		return err
	}
	return ValidateJSON(b.Bytes())
}

// ValidateJSON checks a report document given as JSON.
func ValidateJSON(doc []byte) error {
	schemaOnce.Do(func() {
		b, err := schemas.FS.ReadFile("report.schema.json")
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		const id = "https://schemas.contextreceipts.dev/convert/v1/report.schema.json"
		if err := c.AddResource(id, bytes.NewReader(b)); err != nil {
			schemaErr = err
			return
		}
		schemaDoc, schemaErr = c.Compile(id)
	})
	if schemaErr != nil {
		return schemaErr
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := schemaDoc.Validate(v); err != nil {
		return fmt.Errorf("schema violation: %v", err)
	}
	return nil
}
