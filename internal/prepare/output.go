package prepare

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
)

// Output is everything one prepare writes, already validated and leak-checked.
type Output struct {
	Context    []byte // PreparedContext JSON, one line
	Trace      []byte // OTLP/JSON, when asked for
	Effort     []byte // RecallEffort JSON, when the gate is on
	Diagnostic string // content-free receipt failure, or ""
}

// SchemaError is an output that broke its schema or the OTLP/JSON rules.
type SchemaError struct{ Msg string }

func (e SchemaError) Error() string { return e.Msg }

// LeakError is an output that would carry raw input.
type LeakError struct{ Findings []leak.Finding }

func (e LeakError) Error() string {
	return fmt.Sprintf("leak: %d findings; nothing written", len(e.Findings))
}

// Render serializes a Result, validates every document against its schema
// (the trace against the OTLP/JSON rules) and leak-checks the receipt, the
// trace, the recall effort and the diagnostic against the query and bodies.
// It fails closed: on any error nothing of it may be written.
func Render(res Result, req Request, bodies []string, withTrace bool) (Output, error) {
	var out Output
	b, err := json.Marshal(res.Context)
	if err != nil {
		return out, err
	}
	out.Context = append(b, '\n')
	if err := Validate(b, KindContext); err != nil {
		return out, SchemaError{"prepared context: " + err.Error()}
	}
	checked := map[string][]byte{}
	if r := res.Context.Receipt; r != nil {
		rb, _ := json.Marshal(r)
		if err := Validate(rb, KindReceipt); err != nil {
			return out, SchemaError{"receipt: " + err.Error()}
		}
		checked["receipt"] = rb
	}
	if res.Effort != nil {
		eb, _ := json.Marshal(res.Effort)
		if err := Validate(eb, KindEffort); err != nil {
			return out, SchemaError{"recall effort: " + err.Error()}
		}
		out.Effort = append(eb, '\n')
		checked["recall effort"] = eb
	}
	if withTrace {
		var tb bytes.Buffer
		if err := otlp.Write(&tb, Trace(res, req)); err != nil {
			return out, err
		}
		if probs := otlp.Validate(tb.Bytes()); len(probs) > 0 {
			return out, SchemaError{"trace: " + probs[0].Error()}
		}
		out.Trace = tb.Bytes()
		checked["trace"] = out.Trace
	}
	if res.Diagnostic != "" {
		out.Diagnostic = res.Diagnostic
		checked["diagnostic"] = []byte(res.Diagnostic)
	}
	f, err := LeakCheck(checked, req.Query, bodies, PassThrough(res.Context.Receipt))
	if err != nil {
		return out, err
	}
	if len(f) > 0 {
		return Output{}, LeakError{f}
	}
	return out, nil
}
