//go:build unix && !linux

package mcp

import "syscall"

// dieWithParent does nothing where the kernel has no parent-death signal.
func dieWithParent(*syscall.SysProcAttr) {}

// onSpawnThread runs f.
func onSpawnThread(f func()) (release func()) { f(); return func() {} }
