package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxLog is the size at which the log is moved to LOG.1 and started anew.
const MaxLog = 1 << 20

// Log appends timestamped lines to a file. Every line goes through Scrub
// first; a line that would still name one of its raw strings is replaced
// by a generic one. Writing never fails the hook: a log that cannot be
// opened is dropped.
type Log struct {
	mu   sync.Mutex
	path string
	raw  []string // strings that must never be written (paths, cwd)
	subs []string // old, new pairs applied before the check
	now  func() time.Time
}

// OpenLog returns a Log writing to path (its directory is created).
func OpenLog(path string) *Log {
	return &Log{path: path, now: time.Now}
}

// Withhold adds raw strings no line may hold; shorter than 6 bytes are
// ignored (they would match everywhere).
func (l *Log) Withhold(raw ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range raw {
		if len(r) >= 6 {
			l.raw = append(l.raw, r)
		}
	}
}

// Replace rewrites old to new in every line (a session directory to "",
// say), before the raw check.
func (l *Log) Replace(old, new string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old != "" {
		l.subs = append(l.subs, old, new)
	}
}

// Scrub applies the replacements and the raw check to one message.
func (l *Log) Scrub(msg string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.scrub(msg)
}

func (l *Log) scrub(msg string) string {
	msg = strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", " | ")
	if len(l.subs) > 0 {
		msg = strings.NewReplacer(l.subs...).Replace(msg)
	}
	for _, r := range l.raw {
		if strings.Contains(msg, r) {
			return "a message was withheld: it named a local path or raw value"
		}
	}
	return msg
}

// Printf writes one line: time, then the scrubbed message.
func (l *Log) Printf(format string, a ...any) {
	if l == nil || l.path == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	line := l.now().UTC().Format(time.RFC3339) + " " + l.scrub(fmt.Sprintf(format, a...)) + "\n"
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return
	}
	if st, err := os.Stat(l.path); err == nil && st.Size()+int64(len(line)) > MaxLog {
		_ = os.Rename(l.path, l.path+".1")
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}

// Writer returns an io.Writer whose every line goes to the log with
// prefix (the pipeline's messages, say).
func (l *Log) Writer(prefix string) *LineWriter { return &LineWriter{log: l, prefix: prefix} }

// LineWriter splits what is written into lines for a Log.
type LineWriter struct {
	log    *Log
	prefix string
	buf    []byte
}

func (w *LineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(w.buf[:i])); line != "" {
			w.log.Printf("%s%s", w.prefix, line)
		}
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// Flush writes a last unterminated line.
func (w *LineWriter) Flush() {
	if line := strings.TrimSpace(string(w.buf)); line != "" {
		w.log.Printf("%s%s", w.prefix, line)
	}
	w.buf = nil
}
