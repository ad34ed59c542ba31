package report

// The tests convert the samples with every shipped converter (the
// binary links them through converters/all; this package links none).
import _ "github.com/contextreceipts/convert/converters/all"
