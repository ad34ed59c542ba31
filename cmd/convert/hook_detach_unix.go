//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach starts the hook's worker in a session of its own, so it outlives
// the hook and is not signalled with the agent's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
