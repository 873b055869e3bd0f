//go:build linux

package democmd

import (
	"os/exec"
	"syscall"
)

// dieWithDemo makes the worker cmd stop when the demo's process ends,
// however it ends (SIGKILL too): the system sends it SIGTERM then
// (Pdeathsig, sent when the thread that started the worker ends: the
// demo locks no goroutine to its thread, so its threads end with it).
func dieWithDemo(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return nil
}
