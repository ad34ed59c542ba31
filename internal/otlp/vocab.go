package otlp

import (
	"reflect"
	"strings"
)

// Vocabulary returns every string the OTLP writer itself puts in a trace:
// the OTLP/JSON field names, the schema URL, the GenAI conventions revision
// and its scope attribute, and the legacy attribute names. They are the
// program's words, never input: a session that quotes a trace must not be
// refused.
func Vocabulary() []string {
	out := []string{SchemaURL, GenAIConventions, GenAIConventionsKey}
	for _, old := range LegacyNames {
		out = append(out, old)
	}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
				out = append(out, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(jsonTraces{}))
	return out
}
