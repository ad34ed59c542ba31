package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File kinds a directory argument is walked for.
var (
	outputSuffixes  = []string{".receipt.ndjson", ".otel.json", ".otel.jsonl"}
	receiptSuffixes = []string{".receipt.ndjson"}
)

// expandFiles turns FILE and directory arguments into files: a file is
// taken whatever its name, a directory is walked in sorted order for the
// files ending in one of suffixes. A missing or unreadable argument is a
// usage error (exit 2), as is a directory with no such file.
func expandFiles(args, suffixes []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, usageError("%s: %s", a, reason(err))
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		n := len(files)
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && hasSuffix(p, suffixes) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, usageError("%s: %s", a, reason(err))
		}
		if len(files) == n {
			return nil, usageError("%s: no %s file in this directory", a, strings.Join(suffixes, " or "))
		}
	}
	return files, nil
}

func hasSuffix(p string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// reason is an error without the path it names (the message adds it once).
func reason(err error) string {
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
		return pe.Err.Error()
	}
	return err.Error()
}
