package hook

import (
	"path/filepath"
)

// DataDir is convert's per-user data directory, where hooks keep receipts
// and their log:
//
//	$CONVERT_DATA_DIR                                when set
//	$XDG_DATA_HOME/convert                           when set (any Unix)
//	~/Library/Application Support/convert           macOS
//	%LOCALAPPDATA%\convert                           Windows
//	~/.local/share/convert                           elsewhere
func DataDir(getenv func(string) string, goos, home string) string {
	if d := getenv("CONVERT_DATA_DIR"); d != "" {
		return d
	}
	switch {
	case goos == "windows" && getenv("LOCALAPPDATA") != "":
		return filepath.Join(getenv("LOCALAPPDATA"), "convert")
	case goos != "windows" && getenv("XDG_DATA_HOME") != "":
		return filepath.Join(getenv("XDG_DATA_HOME"), "convert")
	case goos == "darwin":
		return filepath.Join(home, "Library", "Application Support", "convert")
	}
	return filepath.Join(home, ".local", "share", "convert")
}
