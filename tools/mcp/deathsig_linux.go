//go:build linux

package mcp

import (
	"runtime"
	"sync"
	"syscall"
)

// dieWithParent has the kernel send SIGKILL to the server when offshoot's
// process dies — even by SIGKILL, when nothing of offshoot runs to stop
// it. The kernel sends it when the thread that started the server ends,
// not the process; so servers are started on one thread that lives as
// long as the process (onSpawnThread).
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// spawnThread runs what it is given on one goroutine locked to its OS
// thread for the life of the process: a goroutine that exits while
// locked takes its thread with it, and the children that thread started
// with a parent-death signal would be killed too.
var spawnThread = sync.OnceValue(func() chan<- func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread must not end
		for f := range ch {
			f()
		}
	}()
	return ch
})

// onSpawnThread runs f on the spawning thread and waits for it.
func onSpawnThread(f func()) {
	done := make(chan struct{})
	spawnThread() <- func() { defer close(done); f() }
	<-done
}
