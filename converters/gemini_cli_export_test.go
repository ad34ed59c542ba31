package converters

// The default locations of the readers of this branch, for the tests of
// package converters_test (the lead wires them into convert run).
var (
	GeminiDefaultDirs  = geminiDefaultDirs
	CopilotDefaultDirs = copilotDefaultDirs
)
