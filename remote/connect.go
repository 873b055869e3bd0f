package remote

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Connection says where the NATS server is and how to authenticate to it
// and check its certificate, with the settings of the nats command line
// (its NATS_* variables: ConnectionFromEnv). The credentials go to
// nats.go's own options; Connect and Options never print them.
type Connection struct {
	// URL is the server's URL, or several, comma-separated (NATS_URL;
	// nats.DefaultURL when empty).
	URL string
	// Creds is a credentials file: a user JWT and its nkey seed
	// (NATS_CREDS; nats.UserCredentials).
	Creds string
	// Nkey is a file holding a user's nkey seed (NATS_NKEY;
	// nats.NkeyOptionFromSeed).
	Nkey string
	// User and Password authenticate as a user (NATS_USER, NATS_PASSWORD;
	// nats.UserInfo). A user without a password is a token, as the nats
	// command line takes it (nats.Token).
	User, Password string
	// CA is a file of PEM certificates the server's certificate is checked
	// against (NATS_CA; nats.RootCAs). Cert and Key are a client
	// certificate and its key, in PEM files (NATS_CERT, NATS_KEY;
	// nats.ClientCert).
	CA, Cert, Key string
	// Timeout bounds connecting (NATS_TIMEOUT, a Go duration such as 5s;
	// nats.go's default when 0).
	Timeout time.Duration
	// Reconnect is about how long the client tries to reach a server it
	// lost before the connection closes for good (DefaultReconnect when 0,
	// for ever when negative); then a worker's Serve returns, saying so,
	// and an executor fails its children (nats.MaxReconnects and
	// nats.ReconnectWait).
	Reconnect time.Duration
}

// DefaultReconnect is how long a connection tries to reach a server it
// lost, unless Connection.Reconnect says otherwise: two minutes.
const DefaultReconnect = 2 * time.Minute

// reconnectWait is the pause between two attempts to reconnect, or less
// for a short Connection.Reconnect.
const reconnectWait = 2 * time.Second

// ConnectionFromEnv reads the nats command line's variables: NATS_URL,
// NATS_CREDS, NATS_NKEY, NATS_USER, NATS_PASSWORD, NATS_CA, NATS_CERT,
// NATS_KEY and NATS_TIMEOUT.
func ConnectionFromEnv(getenv func(string) string) (Connection, error) {
	c := Connection{URL: getenv("NATS_URL"), Creds: getenv("NATS_CREDS"), Nkey: getenv("NATS_NKEY"),
		User: getenv("NATS_USER"), Password: getenv("NATS_PASSWORD"),
		CA: getenv("NATS_CA"), Cert: getenv("NATS_CERT"), Key: getenv("NATS_KEY")}
	if t := getenv("NATS_TIMEOUT"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("NATS_TIMEOUT=%q is not a duration; give one such as 5s", clip(t))
		}
		c.Timeout = d
	}
	return c, nil
}

// Options returns the nats.go options of c's credentials, certificates,
// timeout and reconnection.
func (c Connection) Options() ([]nats.Option, error) {
	var opts []nats.Option
	ways := 0
	if c.Creds != "" {
		ways++
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.Nkey != "" {
		ways++
		opt, err := nats.NkeyOptionFromSeed(c.Nkey)
		if err != nil {
			return nil, fmt.Errorf("the nkey seed file %s (NATS_NKEY): %w", c.Nkey, err)
		}
		opts = append(opts, opt)
	}
	switch {
	case c.User != "" && c.Password != "":
		ways++
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	case c.User != "":
		ways++
		opts = append(opts, nats.Token(c.User))
	case c.Password != "":
		return nil, errors.New("a NATS password (NATS_PASSWORD) is set without a user (NATS_USER); set both")
	}
	if ways > 1 {
		return nil, errors.New("more than one way to authenticate to the NATS server is set (NATS_CREDS, NATS_NKEY, NATS_USER): set one")
	}
	if c.CA != "" {
		opts = append(opts, nats.RootCAs(c.CA))
	}
	switch {
	case c.Cert != "" && c.Key != "":
		opts = append(opts, nats.ClientCert(c.Cert, c.Key))
	case c.Cert != "" || c.Key != "":
		return nil, errors.New("a client certificate needs both its certificate (NATS_CERT) and its key (NATS_KEY)")
	}
	if c.Timeout > 0 {
		opts = append(opts, nats.Timeout(c.Timeout))
	}
	return append(opts, reconnect(c.Reconnect)...), nil
}

// reconnect returns the options that make a connection try to reach a
// server it lost for about d (see Connection.Reconnect).
func reconnect(d time.Duration) []nats.Option {
	switch {
	case d < 0:
		return []nats.Option{nats.MaxReconnects(-1)}
	case d == 0:
		d = DefaultReconnect
	}
	wait := min(reconnectWait, max(d/8, 10*time.Millisecond))
	return []nats.Option{nats.ReconnectWait(wait), nats.MaxReconnects(int((d + wait - 1) / wait))}
}

// Connect connects to the server c names, with c's options followed by
// extra. Its error never holds c's password or token.
func Connect(c Connection, extra ...nats.Option) (*nats.Conn, error) {
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	url := c.URL
	if url == "" {
		url = nats.DefaultURL
	}
	nc, err := nats.Connect(url, append(opts, extra...)...)
	if err != nil {
		return nil, errors.New(c.redact(err.Error()))
	}
	return nc, nil
}

// redact hides c's password and token in s.
func (c Connection) redact(s string) string {
	secrets := []string{c.Password}
	if c.Password == "" {
		secrets = append(secrets, c.User) // a token
	}
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "xxxxx")
		}
	}
	return s
}
