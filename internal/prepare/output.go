package prepare

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/otlp"
)

// Output is everything one prepare writes, already validated and leak-checked.
type Output struct {
	Context    []byte // PreparedContext JSON, one line
	Trace      []byte // OTLP/JSON, when asked for
	Effort     []byte // RecallEffort JSON, when the gate is on (nil when it was withheld)
	Diagnostic string // content-free receipt or recall effort failure, or ""
}

// Render serializes a Result, validates every document against its schema
// (the trace against the OTLP/JSON rules) and leak-checks the receipt, the
// trace, the recall effort and the diagnostic against the query and bodies.
//
// The receipt fails open (seed 000): a receipt that breaks its schema or
// would carry raw input is dropped, the PreparedContext is exactly the one
// without include_receipt, and Diagnostic says why without content. So does
// the recall effort (seed 001: a failing sink is swallowed and logged).
// The PreparedContext itself and the trace fail closed: on any other error
// (a *gate.SchemaError, a *gate.LeakError) nothing of it may be written.
func Render(res Result, req Request, bodies []string, withTrace bool) (Output, error) {
	var out Output
	pass := append([]string{}, req.ScopeIDs...) // identities the caller named
	if res.Effort != nil {
		pass = append(pass, res.Effort.Policy) // configuration, not input
	}
	if id := res.Hash.KeyID(); id != "" {
		pass = append(pass, id)
	}
	if r := res.Context.Receipt; r != nil {
		rb, _ := json.Marshal(r)
		ids := append(PassThrough(r), pass...)
		why := ""
		if err := CheckCaps(r); err != nil { // the bytes printed: rb is the receipt as res.Context embeds it
			why = "receipt omitted: " + err.Error()
		} else if err := gate.ValidateDocument(rb); err != nil {
			why = "receipt omitted: receipt does not match its schema"
		} else if f, err := LeakCheck([]Named{{"receipt", maskHonestIDs(rb, ids)}}, req.Query, bodies, ids); err != nil {
			return out, err
		} else if len(f) > 0 {
			why = "receipt omitted: leak check found raw input"
		}
		if why != "" {
			res.Context.Receipt, res.Diagnostic = nil, joinDiag(why, res.Diagnostic)
		}
	}
	b, err := json.Marshal(res.Context)
	if err != nil {
		return out, err
	}
	out.Context = append(b, '\n')
	if err := gate.ValidateDocument(b); err != nil {
		return out, schemaError("prepared context", err)
	}
	var checked []Named
	if res.Effort != nil {
		eb, _ := json.Marshal(res.Effort)
		why := ""
		if err := gate.ValidateDocument(eb); err != nil {
			why = "recall effort omitted: it does not match its schema"
		} else if f, err := LeakCheck([]Named{{"recall effort", maskHonestIDs(eb, pass)}}, req.Query, bodies, pass); err != nil {
			return out, err
		} else if len(f) > 0 {
			why = "recall effort omitted: leak check found raw input"
		}
		if why == "" {
			out.Effort = append(eb, '\n')
		} else {
			res.Diagnostic = joinDiag(res.Diagnostic, why)
		}
	}
	if withTrace {
		var tb bytes.Buffer
		if err := otlp.Write(&tb, Trace(res, req)); err != nil {
			return out, err
		}
		if probs := otlp.Validate(tb.Bytes()); len(probs) > 0 {
			return out, &gate.SchemaError{Path: "trace", Msg: probs[0].Error()}
		}
		out.Trace = tb.Bytes()
		checked = append(checked, Named{"trace", out.Trace})
	}
	if res.Diagnostic != "" {
		out.Diagnostic = res.Diagnostic
		checked = append(checked, Named{"diagnostic", []byte(res.Diagnostic)})
	}
	f, err := LeakCheck(checked, req.Query, bodies, pass)
	if err != nil {
		return out, err
	}
	if len(f) > 0 {
		return Output{}, &gate.LeakError{Findings: f}
	}
	return out, nil
}

// schemaError names the document a gate.ValidateDocument failure is about.
func schemaError(doc string, err error) error {
	var se *gate.SchemaError
	if errors.As(err, &se) {
		return &gate.SchemaError{Path: doc, Msg: se.Msg}
	}
	return &gate.SchemaError{Path: doc, Msg: err.Error()}
}

// joinDiag joins content-free diagnostics with "; ", skipping empty ones.
func joinDiag(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
