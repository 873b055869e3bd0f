//go:build unix

package mcp

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, so that the
// processes it starts can be stopped with it; on Linux the kernel also
// kills it when offshoot dies (see dieWithParent).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// killGroup kills every process left in the group cmd leads. It is not an
// error when none is left.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
