package gate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// DerivedFields hold values the program itself derives from digests and
// parsed times or the clock (ids, unix nanoseconds, line numbers): they
// cannot carry input content, a query of digits must not collide with them,
// and a long session has hundreds of thousands of them, so the outputs the
// program writes leave them out of the leak index. Files given to
// convert leakcheck against session logs are indexed whole.
var DerivedFields = map[string]bool{
	"trace_id": true, "span_id": true, "traceId": true, "spanId": true, "parentSpanId": true,
	"time": true, "source_line": true, // a parsed, re-formatted record time; a line number
	"timeUnixNano": true, "startTimeUnixNano": true, "endTimeUnixNano": true,
}

// TraceSkip also leaves out a conversion trace's span events: the OTLP
// writer builds them from the very attributes of the receipt lines, which
// are indexed already, and they are most of a long session's trace.
var TraceSkip = func() map[string]bool {
	m := map[string]bool{"events": true}
	for k := range DerivedFields {
		m[k] = true
	}
	return m
}()

// AddDocument adds an output the program holds in memory: a JSON document
// whole, anything else line by line as text.
func (o *Outputs) AddDocument(name string, doc []byte) {
	if jsonscan.Valid(doc) {
		o.AddJSON(gjson.ParseBytes(doc), Where{Kind: Document, File: name}, DerivedFields)
		return
	}
	for i, l := range strings.Split(string(doc), "\n") {
		o.Add(l, Where{Kind: Line, File: name, Index: i + 1})
	}
}

// AddFile adds an output file given to check, as AddReader reads it.
func (o *Outputs) AddFile(path string, skip map[string]bool) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, openError(err))
	}
	defer fh.Close()
	if err := o.AddReader(path, fh, skip); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// AddReader adds the output called name. A *.json output is one JSON
// document (a PreparedContext only by its receipt: its content is the
// injection, raw by design), or text; any other (receipt NDJSON, a saved
// stderr) is read line by line, each line JSON or text. A text line is
// read as a message, as the run checks what it prints: the words of the
// program's own messages are not raw input ("input matches no known
// kind" against an input with a "matches" key), anything else in it is.
// The values of the keys in skip are left out.
func (o *Outputs) AddReader(name string, r io.Reader, skip map[string]bool) error {
	if strings.HasSuffix(name, ".json") {
		doc, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if jsonscan.Valid(doc) {
			o.AddJSON(gjson.ParseBytes(CheckedPart(doc)), Where{Kind: Document, File: name}, skip)
			return nil
		}
		o.Add(string(doc), Where{Kind: Document, File: name})
		return nil
	}
	sc := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := sc.ReadString('\n')
		if len(line) > 0 {
			w := Where{Kind: Line, File: name, Index: n}
			if t := strings.TrimRight(line, "\r\n"); jsonscan.Valid([]byte(t)) {
				o.AddJSON(gjson.Parse(t), w, skip)
			} else {
				o.AddMessage(t, w)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// CheckedPart returns what of an output document the leak check covers:
// the receipt of a PreparedContext (its content is the injection, raw by
// design; none: an empty object), or the whole document otherwise.
func CheckedPart(doc []byte) []byte {
	if SchemaOf(doc) != PreparedContext {
		return doc
	}
	if r := gjson.GetBytes(doc, "receipt"); r.Exists() {
		return []byte(r.Raw)
	}
	return []byte("{}")
}

// openError drops the path an os error repeats (the message names it once).
func openError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return errors.New(pe.Err.Error())
	}
	return err
}
