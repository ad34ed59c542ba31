package pipeline

// The tests convert real samples with every shipped converter; the
// pipeline itself links none (the binary chooses, converters/all).
import _ "github.com/contextreceipts/convert/converters/all"
