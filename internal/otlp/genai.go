package otlp

import "github.com/contextreceipts/convert/internal/receipt"

// GenAIConventions is the revision of the OpenTelemetry GenAI semantic
// conventions (repository open-telemetry/semantic-conventions-genai, status
// Development) whose registry the gen_ai.* and mcp.* span attributes follow.
// testdata/genai-registry.json transcribes that registry for the spans we
// write, and the trace tests hold every golden trace to it.
const GenAIConventions = "open-telemetry/semantic-conventions-genai@4f0695dd8377961047e016401b7aa672526bbe8c"

// GenAIConventionsKey is the scope attribute that names GenAIConventions in
// every trace, beside the scope's schemaUrl (the core release).
const GenAIConventionsKey = "convert.semconv.genai.revision"

// scopeAttrs are the instrumentation scope's attributes in every trace.
var scopeAttrs = receipt.Attrs{{Key: GenAIConventionsKey, Value: receipt.S(GenAIConventions)}}

// LegacyNames maps each GenAI span attribute the conventions renamed to the
// name it had before. Traces carry only the current names unless
// Trace.LegacyGenAINames (convert run --legacy-genai-names) asks for both.
var LegacyNames = map[string]string{
	"gen_ai.usage.cache_write.input_tokens": "gen_ai.usage.cache_creation.input_tokens",
}
