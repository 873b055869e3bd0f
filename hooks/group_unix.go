//go:build unix

package hooks

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own, whose process group it
// leads: killGroup then reaches every process the hook starts that stays
// in the group, and none of them has offshoot's terminal as its
// controlling terminal.
func ownSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
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
