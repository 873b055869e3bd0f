package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"syscall"
)

// refusedPrefixes are address ranges off the public internet that the
// netip predicates do not name: shared CGNAT space, "this network",
// IETF protocol assignments, documentation and benchmarking ranges, the
// reserved class E and broadcast, and the local-use NAT64 prefix.
var refusedPrefixes = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local NAT64 address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
}

// Prefixes whose addresses carry an IPv4 address in their last 32 bits:
// the well-known NAT64 prefix and the deprecated IPv4-compatible form.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	compatible = netip.MustParsePrefix("::/96")
)

// addressError is a refused address: what the model reads.
type addressError struct {
	host string // the name that resolved to it, or "" for a literal
	addr netip.Addr
	what string
}

func (e *addressError) Error() string {
	if e.host != "" && e.host != e.addr.String() {
		return fmt.Sprintf("%s resolves to %s, %s: web_fetch reaches only public internet addresses", e.host, e.addr, e.what)
	}
	return fmt.Sprintf("%s is %s: web_fetch reaches only public internet addresses", e.addr, e.what)
}

// checkAddr returns why addr may not be reached, or nil; an address in
// allow may always be.
func checkAddr(addr netip.Addr, allow []netip.Prefix) error {
	addr = addr.WithZone("")
	if slices.ContainsFunc(allow, func(p netip.Prefix) bool { return p.Contains(addr) || p.Contains(addr.Unmap()) }) {
		return nil
	}
	a := addr.Unmap()
	if a.Is6() && (nat64.Contains(a) || (compatible.Contains(a) && !a.IsUnspecified() && a != netip.IPv6Loopback())) {
		b := a.As16()
		inner := netip.AddrFrom4([4]byte(b[12:]))
		if err := checkAddr(inner, allow); err != nil {
			return &addressError{addr: addr, what: "an IPv6 form of " + inner.String() + ", " + err.(*addressError).what}
		}
		return nil
	}
	what := ""
	switch {
	case !a.IsValid():
		what = "not an address"
	case a.IsUnspecified():
		what = "the unspecified address"
	case a.IsLoopback():
		what = "a loopback address (this machine)"
	case a.IsPrivate():
		what = "a private address"
	case a.IsLinkLocalUnicast():
		what = "a link-local address"
	case a.IsMulticast():
		what = "a multicast address"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		what = "the broadcast address"
	default:
		for _, r := range refusedPrefixes {
			if r.prefix.Contains(a) {
				what = r.what
				break
			}
		}
	}
	if what == "" {
		return nil
	}
	return &addressError{addr: addr, what: what}
}

// dialer connects only to addresses checkAddr lets through: it resolves
// the host itself, refuses the connection when any address the name has
// is refused, and connects to the checked addresses — never by name, so a
// second DNS answer cannot slip in between. Its net.Dialer checks each
// address again as it connects.
type dialer struct {
	allow  []netip.Prefix
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// dial is the transport's DialContext.
func (d *dialer) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = d.lookup(ctx, host); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	for _, a := range addrs {
		if err := checkAddr(a, d.allow); err != nil {
			err.(*addressError).host = host
			return nil, err
		}
	}
	nd := &net.Dialer{Control: d.control}
	var errs []error
	for _, a := range addrs {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// control checks the address a socket is about to connect to.
func (d *dialer) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("connecting to %s: not an address and port", address)
	}
	return checkAddr(ap.Addr(), d.allow)
}

// lookupHost resolves host with the system's resolver.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}
