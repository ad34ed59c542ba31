package pipeline

import (
	"bytes"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Files is an input held in memory: file names (slash-separated, as
// fs.ValidPath wants them) to contents. It is an fs.FS for Options.FS, so
// fuzz targets and tests convert bytes through the whole pipeline (read,
// convert, validate, leak check, trace) with no temporary files.
type Files map[string][]byte

// Open implements fs.FS.
func (m Files) Open(name string) (fs.File, error) {
	data, ok := m[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: bytes.NewReader(data), info: memInfo{name: path.Base(name), size: int64(len(data))}}, nil
}

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// ConvertFiles converts one input whose files are in files: in.Path, the
// companions' paths and sidecars are names in it. Everything else is
// Convert's: the same checks, the same bytes out.
func ConvertFiles(files Files, in Input, opt Options) Result {
	opt.FS = files
	return Convert(in, opt)
}

// LeakCheckOutputs is LeakCheckFiles (convert leakcheck) on bytes: the raw
// strings of the input files (every file of files, read with the
// pass-through fields of converter) against every string of outputs, named
// as files would be (*.json read as one JSON document, anything else as
// lines of JSON or text). It lets a test plant content in an output and
// see the check refuse it; the checker returned gives the findings and the
// untyped strings.
func LeakCheckOutputs(files Files, converter string, outputs map[string][]byte) (*gate.Checker, error) {
	return LeakCheckNoted(files, converter, outputs, nil)
}

// LeakCheckNoted is LeakCheckOutputs with the provenance of the outputs'
// numbers: notes holds attributes as a conversion notes its outputs'
// (gate.Numbers), each number's mark as its writer built it. The fuzz
// reference plants numbers computed and copied and holds the check to its
// rule.
func LeakCheckNoted(files Files, converter string, outputs map[string][]byte, notes receipt.Attrs) (*gate.Checker, error) {
	var nums *gate.Numbers
	if notes != nil {
		nums = new(gate.Numbers)
		nums.Note(notes)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	conv, err := passThroughOf(names[0], converter, files)
	if err != nil {
		return nil, err
	}
	each := func(fn func(doc []byte, line int)) {
		for _, n := range names {
			if strings.HasSuffix(n, ".json") {
				if doc, err := readMeta(files, n); err == nil {
					fn(doc, 1)
				}
				continue
			}
			for i, l := range bytes.Split(files[n], []byte{'\n'}) {
				if l = bytes.TrimSuffix(l, []byte{'\r'}); jsonscan.Valid(l) {
					fn(l, i+1)
				}
			}
		}
	}
	in, know := leak.NewInput(), conv.Knowledge()
	for _, n := range names {
		in.Pass(path.Base(n))
		in.Pass(n)
	}
	each(func(doc []byte, _ int) { in.Line(doc, conv.PassThrough, know) })
	outs := gate.NewOutputs()
	outs.WithNumbers(nums)
	onames := make([]string, 0, len(outputs))
	for n := range outputs {
		onames = append(onames, n)
	}
	sort.Strings(onames)
	for _, n := range onames {
		if err := outs.AddReader(n, bytes.NewReader(outputs[n]), nil); err != nil {
			return nil, err
		}
	}
	chk := outs.Check(in)
	if chk.NeedsProbe() {
		each(func(doc []byte, n int) { chk.Line(doc, n, conv.PassThrough, know) })
	}
	return chk, nil
}

// Vocabulary is every string the leak check takes for the program's own
// (gate.Vocabulary), for reference checks in tests. Read only.
func Vocabulary() map[string]bool { return gate.Vocabulary() }
