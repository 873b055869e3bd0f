// Package sqlitedsn reads the DSN of a SQLite store — a file's path,
// optionally followed by options, as in "sessions.db?_synchronous=FULL" —
// for store/sqlite, which opens it, and for the CLI, which checks the
// file it names before opening it.
package sqlitedsn

import (
	"fmt"
	"strings"
)

// Split returns the file's path dsn names and the synchronous setting its
// options ask for: NORMAL by default, FULL or EXTRA. A path that has a
// "?" of its own is read as a path when what follows it is not options
// (name=value pairs joined by &, each name starting with an underscore).
// An option other than _synchronous, or a synchronous setting that could
// lose what a store said it kept (OFF), is an error naming it.
func Split(dsn string) (path, sync string, err error) {
	sync = "NORMAL"
	i := strings.LastIndexByte(dsn, '?')
	if i < 0 || !isOptions(dsn[i+1:]) {
		return dsn, sync, nil
	}
	for _, opt := range strings.Split(dsn[i+1:], "&") {
		name, value, _ := strings.Cut(opt, "=")
		switch name {
		case "_synchronous":
			switch v := strings.ToUpper(value); v {
			case "NORMAL", "FULL", "EXTRA":
				sync = v
			default:
				return "", "", fmt.Errorf("%s: the store keeps NORMAL, FULL or EXTRA synchronous (OFF could lose or damage what Append said it kept)", opt)
			}
		default:
			return "", "", fmt.Errorf("the DSN %q has an unknown option %s; the options are _synchronous (NORMAL, FULL or EXTRA)", dsn, name)
		}
	}
	return dsn[:i], sync, nil
}

// isOptions reports whether q reads as options: name=value pairs joined
// by &, each name starting with an underscore.
func isOptions(q string) bool {
	for _, opt := range strings.Split(q, "&") {
		name, _, ok := strings.Cut(opt, "=")
		if !ok || !strings.HasPrefix(name, "_") || strings.ContainsAny(name, "/\\") {
			return false
		}
	}
	return q != ""
}
