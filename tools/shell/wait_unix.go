//go:build unix && !linux

package shell

import "os/exec"

// waitExited waits until the process cmd started has exited, reaping it
// (reaped is true): without Linux's waitid WNOWAIT, killGroup after it
// may, in theory, meet a new group that reuses the id.
func waitExited(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}
