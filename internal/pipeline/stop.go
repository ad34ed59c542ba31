package pipeline

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/contextreceipts/convert/internal/jsonl"
)

// DetectBytes bounds what detection (and a layout's look at a file's first
// lines) reads of an input: a first line of gigabytes, or a file that never
// ends, is not read for ever to learn its kind. It is the longest line
// converted (jsonl.DefaultMaxLine), so an honest session that opens with a
// pasted file of megabytes is still told apart (TestClaudeCodeHugeLines).
// An input whose kind is not in its first DetectBytes is of no known kind
// (give --converter).
const DetectBytes = jsonl.DefaultMaxLine

// stopping wraps an input's reader so that every read after ctx is done
// fails with ErrInterrupted: cancellation is seen within one read buffer
// (64 KiB), whatever the input's lines are like (one line of gigabytes).
func stopping(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil || ctx.Done() == nil {
		return r
	}
	return stopReader{ctx, r}
}

type stopReader struct {
	ctx context.Context
	r   io.Reader
}

func (s stopReader) Read(p []byte) (int, error) {
	if s.ctx.Err() != nil {
		return 0, ErrInterrupted
	}
	return s.r.Read(p)
}

// interrupted is the input's failure once the run is cancelled, checked
// between the steps of finishing an input (each bounded by the input's
// size, but seconds for a large one).
func (f *file) interrupted() error {
	if f.ctx != nil && f.ctx.Err() != nil {
		return &InputError{Path: f.path, Converter: f.conv.Name, Msg: "interrupted", Err: ErrInterrupted}
	}
	return nil
}

// longHint says, for an input no converter claims, when detection stopped
// at DetectBytes: its kind may be past what detection reads.
func longHint(fsys fs.FS, path string) string {
	fh, err := openFile(fsys, path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || st.Size() <= DetectBytes {
		return ""
	}
	return fmt.Sprintf("; only its first %s are read to tell its kind (a longer first line, say): give --converter NAME", HumanBytes(DetectBytes))
}
