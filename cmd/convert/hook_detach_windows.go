//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// detach starts the hook's worker without a console and in a process group
// of its own, so it outlives the hook.
func detach(cmd *exec.Cmd) {
	const detachedProcess, newProcessGroup = 0x00000008, 0x00000200
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | newProcessGroup}
}
