package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/klauspost/compress/zstd"
)

// input is an open input file: records come from Reader (decompressed when
// the file is gzip or zstd, sniffed from its first bytes, not its name),
// while Sum and Bytes cover the file as it is on disk, which is what a
// receipt binds to.
type input struct {
	io.Reader
	file        fs.File
	sum         hash.Hash
	n           int64
	Compression string // "", "gzip" or "zstd"
	closeDec    func()
	raw         *bufio.Reader // from readBuffers, returned when the reading ends
}

// readBuffers are the 64 KiB read buffers of files being read, reused
// from one file to the next: a history is thousands of small sessions, and
// a read must not zero a new buffer of its own. A buffer goes back when
// its reading ends (Rewind, Close); lines
// read from it are views of it, valid only until the next line (converters
// keep what they need through package view's exits; file.borrowed checks).
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func (in *input) release() {
	if in.raw != nil {
		in.raw.Reset(nil)
		readBuffers.Put(in.raw)
		in.raw = nil
	}
}

type teeCount struct {
	r io.Reader
	h hash.Hash
	n *int64
}

func (t teeCount) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.Write(p[:n])
	*t.n += int64(n)
	return n, err
}

// discardHash is a hash that does nothing, for reads that need no digest.
type discardHash struct{ hash.Hash }

func (discardHash) Write(p []byte) (int, error) { return len(p), nil }

// openInput opens path for reading records; only a digesting open hashes
// the file (pass one), the others (detection, pass two) just read it.
func openInput(path string, digest bool) (*input, error) { return openFrom(nil, path, digest) }

// openFrom is openInput reading from fsys (paths are fsys names) when it
// is not nil: an input held in memory (see Options.FS).
func openFrom(fsys fs.FS, path string, digest bool) (*input, error) {
	fh, err := openFile(fsys, path)
	if err != nil {
		return nil, openError(err)
	}
	return reading(fh, path, digest)
}

// reading wraps an open file for reading records from its first byte.
func reading(fh fs.File, path string, digest bool) (*input, error) {
	in := &input{file: fh, sum: discardHash{}}
	if digest {
		in.sum = sha256.New()
	}
	raw := readBuffers.Get().(*bufio.Reader)
	raw.Reset(teeCount{r: fh, h: in.sum, n: &in.n})
	in.raw = raw
	magic, _ := raw.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(raw)
		if err != nil {
			fh.Close()
			return nil, err
		}
		in.Reader, in.Compression, in.closeDec = zr, "gzip", func() { zr.Close() }
	case len(magic) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd:
		// A bounded window keeps memory flat whatever the frame header asks.
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			fh.Close()
			return nil, err
		}
		in.Reader, in.Compression, in.closeDec = zr, "zstd", zr.Close
	case converters.IsDocumentPath(path) || opensDocument(raw):
		in.Reader = documentRecord(raw, path)
	default:
		in.Reader = raw
	}
	return in, nil
}

// documentRecord reads a file that holds one JSON document (a format's
// Format.Document files) as one record: the document compacted onto line
// 1, so detection, pass one and the leak check's second pass all see the
// same single line. A document that is a JSON array (Codebuff's
// chat-messages.json, an array of messages) is read as one record per
// element instead, element n on line n. A document is read whole up to
// maxDocument bytes; a larger one fails, as does a file that is not one
// valid document (torn, cut short), with the line of the document where
// it breaks. A file whose lines are each a JSON value (JSON Lines under a
// document's name) is read as it is, line by line.
func documentRecord(r io.Reader, path string) io.Reader {
	doc, err := io.ReadAll(io.LimitReader(r, int64(maxDocument)+1))
	if err != nil {
		return io.MultiReader(bytes.NewReader(doc), errReader{err})
	}
	if len(doc) > maxDocument {
		return errReader{&InputError{Path: path, Msg: "a JSON document of more than 64 MiB, not read (a format's one-document file is read whole)"}}
	}
	var line bytes.Buffer
	if json.Compact(&line, doc) != nil {
		if jsonLines(doc) {
			return bytes.NewReader(doc)
		}
		return errReader{&InputError{Path: path, Line: documentLine(doc), Msg: "not one whole JSON document: it breaks at this line (a format's one-document file is read whole)"}}
	}
	if line.Len() > 0 && line.Bytes()[0] == '[' {
		return arrayRecords(line.Bytes())
	}
	line.WriteByte('\n')
	return &line
}

// arrayRecords writes the elements of a compacted JSON array one a line.
func arrayRecords(doc []byte) io.Reader {
	var elems []json.RawMessage
	if err := json.Unmarshal(doc, &elems); err != nil {
		return bytes.NewReader(append(doc, '\n')) // valid JSON: cannot happen
	}
	var out bytes.Buffer
	out.Grow(len(doc))
	for _, e := range elems {
		out.Write(e)
		out.WriteByte('\n')
	}
	return &out
}

// opensDocument reports an input, whatever its name, whose first line
// opens a JSON object and holds nothing else: a document pretty-printed
// over many lines (an export saved under a name of the user's choosing,
// or piped to standard input), which is never a JSON Lines record.
func opensDocument(r *bufio.Reader) bool {
	head, _ := r.Peek(512)
	line, _, found := bytes.Cut(head, []byte{'\n'})
	return found && string(bytes.TrimSpace(line)) == "{"
}

// maxDocument is the largest one-document file read: the longest line
// read by default, which the document becomes.
var maxDocument = 64 << 20

// documentLine is the line of doc, which is not one valid JSON document,
// at which it breaks: where a decoder finds a syntax error or a second
// value, or its last line when it is cut short.
func documentLine(doc []byte) int {
	at := len(doc)
	dec := json.NewDecoder(bytes.NewReader(doc))
	var v json.RawMessage
	var se *json.SyntaxError
	if err := dec.Decode(&v); errors.As(err, &se) && se.Offset > 0 && int(se.Offset) <= len(doc) {
		at = int(se.Offset) - 1 // the offset is past the byte at fault
	} else if err == nil {
		at = int(dec.InputOffset())
		for at < len(doc) && (doc[at] == ' ' || doc[at] == '\t' || doc[at] == '\r' || doc[at] == '\n') {
			at++
		}
	}
	n := 1 + bytes.Count(doc[:at], []byte{'\n'})
	if at == len(doc) && at > 0 && doc[at-1] == '\n' {
		n-- // cut short after a newline: the last line written
	}
	return n
}

// jsonLines reports whether every non-blank line of doc is a JSON value.
func jsonLines(doc []byte) bool {
	lines := 0
	for _, l := range bytes.Split(doc, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if !json.Valid(l) {
			return false
		}
		lines++
	}
	return lines > 0
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// openFile opens path from fsys, or from the OS when fsys is nil.
//
// Only a regular file is opened: a named pipe, device or socket in a
// walked folder (or a link to one, say to /dev/zero) would block the run,
// or feed it for ever. It is looked at before it is opened, since opening
// a named pipe waits for a writer.
func openFile(fsys fs.FS, path string) (fs.File, error) {
	if fsys != nil {
		return fsys.Open(path)
	}
	if e := virtualEntry(path); e != nil {
		return openVirtual(e)
	}
	p := resolve(path)
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s): skipped; only regular files are read", ErrNotRegular, kindOf(st.Mode()))
	}
	return os.Open(p)
}

// ErrNotRegular is the cause of an input that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// kindOf names a file mode that is not a regular file's.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a file"
}

// FileSum drains what is left of the file (a decompressor may stop before
// trailing bytes) and returns the sha256 and size of the whole file.
func (in *input) FileSum() ([]byte, int64) {
	io.Copy(io.Discard, teeCount{r: in.file, h: in.sum, n: &in.n})
	return in.sum.Sum(nil), in.n
}

// Rewind ends this reading of the file and returns the file at its first
// byte, open, for the next one (detection hands its file to pass one, so
// that a small session is opened once: on some filesystems an open is
// slow). nil, and the file closed, when it cannot seek.
func (in *input) Rewind() fs.File {
	if in.closeDec != nil {
		in.closeDec()
	}
	in.release()
	if sk, ok := in.file.(io.Seeker); ok {
		if _, err := sk.Seek(0, io.SeekStart); err == nil {
			return in.file
		}
	}
	in.file.Close()
	return nil
}

func (in *input) Close() error {
	if in.closeDec != nil {
		in.closeDec()
	}
	in.release()
	return in.file.Close()
}
