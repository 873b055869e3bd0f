package remote_test

import (
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
)

// The nats command line's variables are read, and a setting that cannot
// work is refused saying which variables to set.
func TestConnectionFromTheNatsVariables(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		options int
		want    string // in the error, when refused
	}{
		{"nothing", nil, 0, ""},
		{"user and password", map[string]string{"NATS_USER": "a", "NATS_PASSWORD": "b"}, 1, ""},
		{"token", map[string]string{"NATS_USER": "t0ken"}, 1, ""},
		{"creds", map[string]string{"NATS_CREDS": "/x.creds"}, 1, ""},
		{"TLS", map[string]string{"NATS_CA": "/ca.pem", "NATS_CERT": "/c.pem", "NATS_KEY": "/k.pem", "NATS_TIMEOUT": "3s"}, 3, ""},
		{"password alone", map[string]string{"NATS_PASSWORD": "b"}, 0, "without a user (NATS_USER)"},
		{"two ways", map[string]string{"NATS_CREDS": "/x.creds", "NATS_USER": "a", "NATS_PASSWORD": "b"}, 0, "more than one way"},
		{"certificate without key", map[string]string{"NATS_CERT": "/c.pem"}, 0, "NATS_KEY"},
		{"missing nkey file", map[string]string{"NATS_NKEY": "/nonexistent/seed.nk"}, 0, "NATS_NKEY"},
		{"bad timeout", map[string]string{"NATS_TIMEOUT": "soon"}, 0, "NATS_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := remote.ConnectionFromEnv(func(k string) string { return tc.env[k] })
			if err == nil {
				var opts []nats.Option
				opts, err = c.Options()
				if tc.want == "" {
					require.NoError(t, err)
					assert.Len(t, opts, tc.options+2, "options besides the two of the reconnection")
					return
				}
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A refused connection's error never holds the password or the token.
func TestConnectNeverPrintsTheSecret(t *testing.T) {
	s := docServer(t)
	for _, c := range []remote.Connection{
		{URL: s.ClientURL(), User: "parent", Password: "not-the-s3cret"},
		{URL: s.ClientURL(), User: "a-t0ken-s3cret"},
		{URL: "nats://parent:pa55-s3cret@127.0.0.1:1", User: "parent", Password: "pa55-s3cret"},
	} {
		_, err := remote.Connect(c)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "s3cret")
	}
}
