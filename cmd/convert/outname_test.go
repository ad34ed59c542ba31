package main

import "github.com/contextreceipts/convert/internal/pipeline"

// outName is the output run writes for an input file named stem.jsonl (a
// name that is not id-shaped is written as its digest, in plain mode).
func outName(stem, suffix string) string { return pipeline.OutputName(stem+".jsonl", suffix) }
