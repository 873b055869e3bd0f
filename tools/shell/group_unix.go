//go:build unix

package shell

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// supported reports whether commands can run here: they need /bin/sh and
// process groups.
const supported = true

// ownSession starts cmd in a session of its own, whose process group it
// leads: killGroup then reaches every process it starts that stays in
// the group, background ones included, and none of them has the
// terminal offshoot runs on as its controlling terminal (so none can
// read it, or push keys into it).
func ownSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup kills every process left in the group that pid leads. It is
// not an error when none is left.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupAlive reports whether any process is left in the group pid leads.
func groupAlive(pid int) bool {
	err := syscall.Kill(-pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// inode returns the inode number of a file's info, 0 when unknown.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// signalOf names the signal that ended a process, or "".
func signalOf(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
