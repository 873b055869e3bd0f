package workercmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// run runs offshoot worker with args and returns its exit code, what it
// printed and its error's text.
func run(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	e := &cli.Env{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] }}
	cmd := Command(e)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.ExecuteContext(context.Background())
	if err != nil {
		out.WriteString(err.Error())
	}
	return cli.Code(err, true), out.String()
}

// A pool becomes a subject token: a name with a dot, a wildcard or a space
// is refused before anything is reached, saying what a name may hold; so
// is a concurrency below one.
func TestTheWorkerRefusesABadPoolOrConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"empty pool", []string{"--pool", ""}, "--pool is empty"},
		{"dot", []string{"--pool", "a.b"}, `--pool "a.b"`},
		{"star", []string{"--pool", "*"}, `--pool "*"`},
		{"chevron", []string{"--pool", ">"}, `--pool ">"`},
		{"space", []string{"--pool", "a b"}, `--pool "a b"`},
		{"too long", []string{"--pool", string(bytes.Repeat([]byte("p"), 65))}, "64 characters"},
		{"zero concurrency", []string{"--concurrency", "0"}, "--concurrency 0"},
		{"negative concurrency", []string{"--concurrency", "-3"}, "--concurrency -3"},
		{"negative reconnect", []string{"--reconnect", "-1s"}, "--reconnect -1s is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An unreachable server: the refusal comes before the connection.
			code, out := run(t, nil, append([]string{"--nats", "nats://127.0.0.1:1"}, tc.args...)...)
			assert.Equal(t, cli.ExitUsage, code, out)
			assert.Contains(t, out, tc.want)
			assert.NotContains(t, out, "cannot reach")
		})
	}
}

// A URL's credentials are never printed back.
func TestTheWorkerNeverPrintsTheURLsCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"user and password", nil, []string{"--nats", "nats://alice:s3cret@127.0.0.1:1"}, "nats://alice:xxxxx@127.0.0.1:1"},
		{"token", nil, []string{"--nats", "nats://s3cret@127.0.0.1:1"}, "nats://xxxxx@127.0.0.1:1"},
		{"several servers", nil, []string{"--nats", "nats://a:s3cret@127.0.0.1:1,nats://b:s3cret@127.0.0.1:2"}, "nats://a:xxxxx@127.0.0.1:1,nats://b:xxxxx@127.0.0.1:2"},
		{"from the environment", map[string]string{"NATS_URL": "nats://alice:s3cret@127.0.0.1:1"}, nil, "nats://alice:xxxxx@127.0.0.1:1"},
		{"NATS_USER and NATS_PASSWORD", map[string]string{"NATS_USER": "alice", "NATS_PASSWORD": "s3cret"}, []string{"--nats", "nats://127.0.0.1:1"}, "nats://127.0.0.1:1"},
		{"NATS_USER as a token", map[string]string{"NATS_USER": "s3cret"}, []string{"--nats", "nats://127.0.0.1:1"}, "nats://127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := run(t, tc.env, tc.args...)
			assert.Equal(t, cli.ExitFailed, code, out)
			assert.Contains(t, out, "cannot reach the NATS server at "+tc.want)
			assert.NotContains(t, out, "s3cret")
		})
	}
}

// A NATS_* setting that cannot work is a usage error naming the
// variables, before anything is reached, and never shows a secret.
func TestTheWorkerRefusesBadNatsVariables(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"password alone", map[string]string{"NATS_PASSWORD": "s3cret"}, "NATS_USER"},
		{"two ways", map[string]string{"NATS_CREDS": "/x.creds", "NATS_USER": "alice", "NATS_PASSWORD": "s3cret"}, "more than one way"},
		{"bad timeout", map[string]string{"NATS_TIMEOUT": "soon"}, "NATS_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := run(t, tc.env, "--nats", "nats://127.0.0.1:1")
			assert.Equal(t, cli.ExitUsage, code, out)
			assert.Contains(t, out, tc.want)
			assert.NotContains(t, out, "s3cret")
			assert.NotContains(t, out, "cannot reach")
		})
	}
}
