//go:build !unix

package hooks

import "os/exec"

// ownSession does nothing where process groups are not available.
func ownSession(*exec.Cmd) {}

// killGroup kills the process cmd started; its own children cannot be
// reached where process groups are not available.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	_ = cmd.Process.Kill()
	return nil
}
