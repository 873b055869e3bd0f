//go:build !unix

package mcp

import "os/exec"

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// killGroup kills the process cmd started; its own children cannot be
// reached where process groups are not available.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return nil
	}
	_ = cmd.Process.Kill()
	return nil
}

// onSpawnThread runs f.
func onSpawnThread(f func()) (release func()) { f(); return func() {} }
