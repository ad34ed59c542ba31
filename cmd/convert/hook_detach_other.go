//go:build !unix && !windows

package main

import "os/exec"

// detach: nothing to set on this system; the worker still runs on its own.
func detach(*exec.Cmd) {}
