package otlp

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// registry is testdata/genai-registry.json: the GenAI conventions' registry
// entries for the spans we write, transcribed from the revision it names.
type registry struct {
	Source struct {
		Repository string
		Revision   string
		Core       struct {
			SchemaURL string `json:"schema_url"`
		}
	}
	Attributes map[string]struct {
		Type              string
		Members           []string
		DeprecatedMembers []string `json:"deprecated_members"`
		JSONSchema        *struct {
			Items struct {
				Required   []string
				Properties map[string]string
			}
		} `json:"json_schema"`
	}
	Deprecated map[string]struct {
		RenamedTo string `json:"renamed_to"`
	}
	Spans map[string]struct {
		Kind       string
		Operation  string
		Attributes map[string]string // id -> requirement level
	}
}

func loadRegistry(t *testing.T) registry {
	t.Helper()
	b, err := os.ReadFile("testdata/genai-registry.json")
	if err != nil {
		t.Fatal(err)
	}
	var r registry
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGenAIRegistryPins: the schema URL and GenAI revision the writer puts
// in every trace are the ones the registry fixture was transcribed from,
// and each legacy name is the deprecated name of the one that replaced it.
func TestGenAIRegistryPins(t *testing.T) {
	r := loadRegistry(t)
	if SchemaURL != r.Source.Core.SchemaURL {
		t.Errorf("SchemaURL %s, the fixture follows %s", SchemaURL, r.Source.Core.SchemaURL)
	}
	if want := r.Source.Repository + "@" + r.Source.Revision; GenAIConventions != want {
		t.Errorf("GenAIConventions %s, the fixture follows %s", GenAIConventions, want)
	}
	for cur, old := range LegacyNames {
		if d, ok := r.Deprecated[old]; !ok || d.RenamedTo != cur {
			t.Errorf("legacy name %s is not the registry's deprecated name of %s", old, cur)
		}
	}
}

// governed reports a span attribute the GenAI and MCP conventions own: their
// namespaces, and error.type, which their spans reference.
func governed(key string) bool {
	return strings.HasPrefix(key, "gen_ai.") || strings.HasPrefix(key, "mcp.") || key == "error.type"
}

// valueType is the registry type an OTLP value has.
func valueType(v jsonAnyValue) string {
	switch {
	case v.StringValue != nil:
		return "string"
	case v.IntValue != nil:
		return "int"
	case v.DoubleValue != nil:
		return "double"
	case v.BoolValue != nil:
		return "boolean"
	case v.ArrayValue != nil:
		for _, e := range v.ArrayValue.Values {
			if e.StringValue == nil {
				return "any"
			}
		}
		return "string[]"
	}
	return "any"
}

// TestGenAIRegistry walks every golden trace and holds each span to the
// registry: each gen_ai.*, mcp.* and error.type attribute exists, has the
// registry's type (and one of its values, for a closed enum), is not
// deprecated, and is defined for the span's type; each required attribute
// of the span's type is there, and error.type is on every failed span.
// Spans named after a reference scenario (agent.session.*, not
// "{gen_ai.operation.name} ...") keep the reference's own mcp.* vocabulary;
// their gen_ai.* attributes are checked like any other.
func TestGenAIRegistry(t *testing.T) {
	r := loadRegistry(t)
	types := map[string]string{} // operation -> span type
	for id, sp := range r.Spans {
		if sp.Operation != "" {
			types[sp.Operation] = id
		}
	}
	kinds := map[string]int{"internal": KindInternal, "client": KindClient, "server": KindServer}
	files, err := globTraces("../../golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	checked := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc jsonTraces
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, rs := range doc.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					for _, p := range checkSpan(r, types, kinds, s, checked) {
						t.Errorf("%s: span %q: %s", strings.TrimPrefix(f, "../../golden/"), s.Name, p)
					}
				}
			}
		}
	}
	for id := range r.Spans {
		if checked[id] == 0 {
			t.Errorf("no golden span of type %s: the check proved nothing for it", id)
		}
	}
}

func checkSpan(r registry, types map[string]string, kinds map[string]int, s jsonSpan, checked map[string]int) []string {
	var probs []string
	attrs := map[string]jsonAnyValue{}
	for _, kv := range s.Attributes {
		attrs[kv.Key] = kv.Value
	}
	op := ""
	if v, ok := attrs["gen_ai.operation.name"]; ok && v.StringValue != nil {
		op = *v.StringValue
	}
	if op == "" {
		for k := range attrs {
			if governed(k) {
				probs = append(probs, fmt.Sprintf("%s outside a GenAI span (no gen_ai.operation.name)", k))
			}
		}
		return probs
	}
	primary, ok := types[op]
	if !ok {
		return []string{fmt.Sprintf("gen_ai.operation.name %q is no span type of the fixture", op)}
	}
	spanTypes := []string{primary}
	if _, ok := attrs["mcp.method.name"]; ok && op == "execute_tool" {
		spanTypes = append(spanTypes, "mcp.client")
	}
	conventional := s.Name == op || strings.HasPrefix(s.Name, op+" ")
	if conventional && s.Kind != kinds[r.Spans[primary].Kind] {
		probs = append(probs, fmt.Sprintf("kind %d, %s spans are %s", s.Kind, primary, r.Spans[primary].Kind))
	}
	defined := map[string]string{}
	for _, st := range spanTypes {
		checked[st]++
		for id, level := range r.Spans[st].Attributes {
			defined[id] = level
			if _, ok := attrs[id]; level == "required" && !ok {
				probs = append(probs, fmt.Sprintf("required %s (%s) is missing", id, st))
			}
		}
	}
	if _, ok := defined["error.type"]; ok && s.Status != nil && s.Status.Code == 2 {
		if _, ok := attrs["error.type"]; !ok {
			probs = append(probs, "failed span without error.type (conditionally required)")
		}
	}
	for _, kv := range s.Attributes {
		k := kv.Key
		if !governed(k) || (!conventional && strings.HasPrefix(k, "mcp.")) {
			continue
		}
		if _, dep := r.Deprecated[k]; dep {
			probs = append(probs, k+" is deprecated")
			continue
		}
		ra, ok := r.Attributes[k]
		if !ok {
			probs = append(probs, k+" is not in the registry")
			continue
		}
		if _, ok := defined[k]; !ok {
			probs = append(probs, fmt.Sprintf("%s is not defined for %v", k, spanTypes))
		}
		if got := valueType(kv.Value); got != ra.Type {
			probs = append(probs, fmt.Sprintf("%s is %s, the registry says %s", k, got, ra.Type))
			continue
		}
		if kv.Value.StringValue != nil && len(ra.Members) > 0 {
			v := *kv.Value.StringValue
			if slices.Contains(ra.DeprecatedMembers, v) {
				probs = append(probs, fmt.Sprintf("%s value %q is deprecated", k, v))
			} else if !slices.Contains(ra.Members, v) {
				probs = append(probs, fmt.Sprintf("%s value %q is not one of the registry's", k, v))
			}
		}
		if k == "gen_ai.conversation.compacted" && (kv.Value.BoolValue == nil || !*kv.Value.BoolValue) {
			probs = append(probs, k+" is a positive indicator: true or unset")
		}
		if ra.JSONSchema != nil {
			probs = append(probs, checkEntries(k, kv.Value, ra.JSONSchema.Items.Required, ra.JSONSchema.Items.Properties)...)
		}
	}
	return probs
}

// checkEntries holds a structured attribute (an array of maps) to its JSON
// schema's item: the required properties, each of its type.
func checkEntries(key string, v jsonAnyValue, required []string, props map[string]string) []string {
	if v.ArrayValue == nil || len(v.ArrayValue.Values) == 0 {
		return []string{key + " is not a non-empty array"}
	}
	var probs []string
	for i, e := range v.ArrayValue.Values {
		if e.KvlistValue == nil {
			probs = append(probs, fmt.Sprintf("%s[%d] is not a map", key, i))
			continue
		}
		seen := map[string]bool{}
		for _, kv := range e.KvlistValue.Values {
			want, ok := props[kv.Key]
			if !ok {
				continue // the schema allows additional properties
			}
			seen[kv.Key] = true
			if got := valueType(kv.Value); got != want {
				probs = append(probs, fmt.Sprintf("%s[%d].%s is %s, the schema says %s", key, i, kv.Key, got, want))
			}
		}
		for _, p := range required {
			if !seen[p] {
				probs = append(probs, fmt.Sprintf("%s[%d] lacks required %s", key, i, p))
			}
		}
	}
	return probs
}
