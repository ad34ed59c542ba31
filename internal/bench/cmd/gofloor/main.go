// Command gofloor does nothing: make bench times its start to exit, built
// as convert is (static, no cgo), as the floor of any Go program's fixed
// cost on the machine (the process, the loader, the Go runtime's start).
package main

func main() {}
