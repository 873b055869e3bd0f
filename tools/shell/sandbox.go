package shell

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Bubblewrap (bwrap) confines a command as Claude Code's sandbox does on
// Linux: in new namespaces (no network unless allowed, its own process
// ids, so that nothing it starts outlives it), seeing the system
// directories read-only, a few files of /etc, a private /tmp, and the
// scratch directory — not the user's home, nor the host directory the
// files were copied from, nor the rest of /etc.

// systemDirs are bound read-only when they exist (as symlinks when they
// are: /bin → usr/bin on a merged /usr).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// etcFiles are the parts of /etc a command may need: who is who, how
// names resolve, certificates, the dynamic linker's cache, Debian's
// alternatives (awk, editor), the time zone. /etc/shadow and the like are
// not among them.
var etcFiles = []string{
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/resolv.conf", "/etc/host.conf",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/alternatives", "/etc/localtime", "/etc/timezone", "/etc/mime.types", "/etc/protocols", "/etc/services",
}

// bwrapArgs returns the argument vector that runs script with /bin/sh -c
// inside bubblewrap at bwrap, with dir writable and the working
// directory.
func bwrapArgs(bwrap, dir, script string, network bool) []string {
	args := []string{bwrap, "--die-with-parent", "--unshare-all"}
	if network {
		args = append(args, "--share-net")
	}
	for _, d := range systemDirs {
		args = appendBind(args, d)
	}
	args = append(args, "--dir", "/etc")
	for _, f := range etcFiles {
		args = appendBind(args, f)
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
		"--bind", dir, dir, "--chdir", dir, "--", "/bin/sh", "-c", script)
	return args
}

// appendBind adds what shows p read-only: a symlink as the same symlink,
// anything else bound when it exists.
func appendBind(args []string, p string) []string {
	info, err := os.Lstat(p)
	switch {
	case err != nil:
		return args
	case info.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return args
		}
		return append(args, "--symlink", target, p)
	}
	return append(args, "--ro-bind", p, p)
}

// probeTimeout bounds the trial run of bubblewrap.
const probeTimeout = 10 * time.Second

// findBwrap returns the path of a bubblewrap that works here, or "": it
// must be installed, and able to make its namespaces (containers often
// forbid user namespaces), which one trial run shows, once per process.
var findBwrap = sync.OnceValue(func() string {
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "true")
	if cmd.Run() != nil {
		return ""
	}
	return p
})
