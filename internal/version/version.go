// Package version says which version of offshoot a program was built
// with, for telemetry (service.version, the instrumentation scope's
// version).
package version

import (
	"runtime/debug"
	"sync"
)

// module is offshoot's module path.
const module = "github.com/offshoot-dev/offshoot"

// devel is the version of a build from a work tree that carries no
// version: the Go tool reports "(devel)", a name no backend sorts or
// groups well.
const devel = "devel"

// Get returns offshoot's version in the running program: the module's
// version when the program depends on offshoot ("v1.2.3"), or the main
// module's when it is offshoot itself; "devel" for a build without one
// ("(devel)"), with the commit when the build recorded it
// ("devel+0123456789ab"); "unknown" when the binary carries no build
// information.
func Get() string { return get() }

var get = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return of(info)
})

// of reads offshoot's version from info.
func of(info *debug.BuildInfo) string {
	v := ""
	switch {
	case info.Main.Path == module:
		v = info.Main.Version
	default:
		for _, d := range info.Deps {
			if d.Path == module {
				v = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v = d.Replace.Version
				}
				break
			}
		}
	}
	if v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return devel + "+" + s.Value[:12]
		}
	}
	return devel
}
