//go:build !linux

package democmd

import (
	"os/exec"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
)

// dieWithDemo makes the worker cmd stop when the demo's process ends,
// however it ends: the worker watches its standard input, a pipe whose
// other end the demo holds until it waits for the worker, and that the
// system closes when the demo ends.
func dieWithDemo(cmd *exec.Cmd) error {
	cmd.Env = append(cmd.Env, workercmd.ExitOnEOF+"=1")
	_, err := cmd.StdinPipe()
	return err
}
