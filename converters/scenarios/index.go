package scenarios

// index_gen.go is the index of the tables defined in this package's files.
//go:generate go run ./genindex index_gen.go
