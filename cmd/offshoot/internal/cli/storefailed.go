package cli

import "strings"

// storeFailed is the error of a command whose store refused to keep its
// session (a damaged file, a full disk, a server gone): a failure, exit 1,
// that says what to do. Nothing of the session was stored.
func (e *Env) storeFailed(err error) error {
	where := "the session store"
	if e.Stored != nil {
		where = e.Stored.Where
	}
	msg := Printable(strings.TrimPrefix(err.Error(), "store/sqlite: "))
	if strings.Contains(where, "://") {
		return Failf("cannot store the session in %s: %s; nothing was stored. Check the server, or run with --no-store", where, msg)
	}
	return Failf("cannot store the session in %s: %s; nothing was stored. The file may be damaged: 'offshoot sessions list' lists the sessions it holds and 'offshoot sessions rm ID' removes a damaged one; "+
		"or move the file away so that offshoot makes a new one, give another with --store, or run with --no-store", where, msg)
}
