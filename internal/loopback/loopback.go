// Package loopback tells an address that names this machine only from one
// the network can reach, for the inspector (which Host headers it takes)
// and the CLI's ui command (whether to warn).
package loopback

import (
	"net"
	"strings"
)

// Is reports whether addr, a host and port (or a host), names this
// machine only (a loopback address or localhost): a page served elsewhere
// can be reached from the network.
func Is(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
