//go:build linux

package shell

import (
	"errors"
	"os/exec"
	"syscall"
	"unsafe"
)

// waitExited waits until the process cmd started has exited, without
// reaping it: while it is a zombie, its process id — the id of its
// process group — cannot be given to another process, so killGroup
// after it reaches the command's group and nothing else. reaped is
// false: cmd.Wait reaps it.
func waitExited(cmd *exec.Cmd) (reaped bool, err error) {
	const pPID, wNOWAIT = 1, 0x01000000
	var info [128]byte // a siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|wNOWAIT, 0, 0)
		switch {
		case errno == 0:
			return false, nil
		case errors.Is(errno, syscall.EINTR):
			continue
		default:
			return true, cmd.Wait() // the process cannot be waited for without reaping it
		}
	}
}
