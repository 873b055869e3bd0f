//go:build !unix

package shell

import (
	"io/fs"
	"os"
	"os/exec"
)

// supported reports whether commands can run here: not without /bin/sh
// and process groups.
const supported = false

func ownSession(*exec.Cmd)                   {}
func killGroup(int) error                    { return nil }
func groupAlive(int) bool                    { return false }
func inode(fs.FileInfo) uint64               { return 0 }
func waitExited(cmd *exec.Cmd) (bool, error) { return true, cmd.Wait() }

func signalOf(*os.ProcessState) string { return "" }
