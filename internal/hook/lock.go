package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Lock serializes the hook's workers on one receipts directory: an agent
// may end a turn (Stop) and its session (SessionEnd) a moment apart, and
// two workers would race on the directory's manifest. The lock is a file
// created exclusively; one older than stale is a crashed worker's and is
// taken over. Lock waits until it has the lock or ctx ends.
func Lock(ctx context.Context, dir string, stale time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ".hook.lock")
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > stale {
			os.Remove(path) // a worker that died holding it
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
