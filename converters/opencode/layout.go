package opencode

import "strings"

// opencodeDocument: `opencode export <session id>` writes to standard
// output, so an export is named by whoever saves it; the name a session
// id gives it (ses_<id>.json) is the one a folder walk reads as a
// document. A file of any other name is read as one when it is given by
// path and its first line opens a document (the pipeline's check).
func opencodeDocument(base string) bool {
	return strings.HasPrefix(base, "ses_") && strings.HasSuffix(base, ".json")
}
