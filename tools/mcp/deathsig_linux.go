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
// not the process; so servers are started on a thread kept for them
// (onSpawnThread).
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// spawner is a goroutine locked to its OS thread that starts the servers,
// kept while one of them runs: a goroutine that exits while locked takes
// its thread with it, and any thread may be taken so, which would kill
// the servers that thread started. When the last server has stopped, the
// goroutine unlocks and ends; the next server starts a new one.
var spawner struct {
	mu   sync.Mutex
	ch   chan func()
	live int
}

// onSpawnThread runs f on the spawning thread and waits for it. Call
// release once the process f started has ended (or when it did not
// start).
func onSpawnThread(f func()) (release func()) {
	spawner.mu.Lock()
	if spawner.ch == nil {
		ch := make(chan func())
		spawner.ch = ch
		go func() {
			runtime.LockOSThread()
			for f := range ch {
				f()
			}
			runtime.UnlockOSThread() // no server depends on the thread any more
		}()
	}
	spawner.live++
	ch := spawner.ch
	spawner.mu.Unlock()
	done := make(chan struct{})
	ch <- func() { defer close(done); f() }
	<-done
	var once sync.Once
	return func() {
		once.Do(func() {
			spawner.mu.Lock()
			defer spawner.mu.Unlock()
			if spawner.live--; spawner.live == 0 {
				close(spawner.ch)
				spawner.ch = nil
			}
		})
	}
}
