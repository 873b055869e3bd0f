package webfetch

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// The guard refuses every address off the public internet, in every
// form, and lets a program allow some explicitly.
func TestCheckAddr(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	for _, tt := range []struct {
		addr  string
		allow []netip.Prefix
		want  string // "" when allowed
	}{
		{"127.0.0.1", nil, "loopback"},
		{"127.255.1.2", nil, "loopback"},
		{"::1", nil, "loopback"},
		{"10.1.2.3", nil, "private"},
		{"172.16.0.1", nil, "private"},
		{"172.31.255.255", nil, "private"},
		{"192.168.1.1", nil, "private"},
		{"169.254.169.254", nil, "link-local"},
		{"fe80::1", nil, "link-local"},
		{"fe80::1%eth0", nil, "link-local"},
		{"fc00::1", nil, "private"},
		{"fd12:3456::1", nil, "private"},
		{"100.64.0.1", nil, "carrier-grade NAT"},
		{"100.127.255.254", nil, "carrier-grade NAT"},
		{"0.0.0.0", nil, "unspecified"},
		{"0.1.2.3", nil, "this network"},
		{"::", nil, "unspecified"},
		{"224.0.0.1", nil, "multicast"},
		{"ff02::1", nil, "multicast"},
		{"255.255.255.255", nil, "broadcast"},
		{"240.0.0.1", nil, "reserved"},
		{"::ffff:127.0.0.1", nil, "loopback"},
		{"::ffff:10.0.0.1", nil, "private"},
		{"::ffff:169.254.169.254", nil, "link-local"},
		{"64:ff9b::a00:1", nil, "IPv6 form of 10.0.0.1"},
		{"64:ff9b::7f00:1", nil, "IPv6 form of 127.0.0.1"},
		{"::7f00:1", nil, "IPv6 form of 127.0.0.1"},
		{"fec0::1", nil, "site-local"},
		{"8.8.8.8", nil, ""},
		{"93.184.215.14", nil, ""},
		{"2606:4700::1111", nil, ""},
		{"::ffff:8.8.8.8", nil, ""},
		{"64:ff9b::808:808", nil, ""},
		{"172.32.0.1", nil, ""},
		{"100.128.0.1", nil, ""},
		{"127.0.0.1", loopback, ""},
		{"::ffff:127.0.0.1", loopback, ""},
		{"::1", loopback, "loopback"},
		{"10.0.0.1", loopback, "private"},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			err := checkAddr(netip.MustParseAddr(tt.addr), tt.allow)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, "reaches only public internet addresses")
		})
	}
}

// A name is refused when any of its addresses is, before any connection;
// the dialer's own check refuses a literal address too.
func TestDialRefuses(t *testing.T) {
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		return map[string][]netip.Addr{
			"inside.test": {netip.MustParseAddr("10.0.0.7")},
			"mixed.test":  {netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("127.0.0.1")},
		}[host], nil
	}
	d := &dialer{lookup: lookup}
	for addr, want := range map[string]string{
		"inside.test:80":     "inside.test resolves to 10.0.0.7, a private address",
		"mixed.test:443":     "mixed.test resolves to 127.0.0.1, a loopback address",
		"[::1]:80":           "::1 is a loopback address",
		"169.254.169.254:80": "169.254.169.254 is a link-local address",
		"nowhere.test:80":    "nowhere.test has no address",
	} {
		_, err := d.dial(context.Background(), "tcp", addr)
		require.ErrorContains(t, err, want, addr)
	}
	require.ErrorContains(t, d.control("tcp4", "127.0.0.1:80", nil), "loopback")
	require.NoError(t, d.control("tcp4", "8.8.8.8:80", nil))
}
