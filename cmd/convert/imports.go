package main

// The converters this binary links: every one the module ships
// (converters/all lists them).
import _ "github.com/contextreceipts/convert/converters/all"
