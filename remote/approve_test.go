package remote

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// askFixture starts a server and returns a connection to it and a job
// that asks for approvals and tells of its calls.
func askFixture(t *testing.T) (*nats.Conn, *job) {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second))
	t.Cleanup(srv.Shutdown)
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc, &job{Token: "t", Secret: newSecret(), Reply: "offshoot.progress.x.t", Approve: "offshoot.approve.x.t"}
}

// answer answers every request on subject with data, signed as sign says.
func answer(t *testing.T, nc *nats.Conn, subject string, data []byte, signed func(request []byte) nats.Header) {
	t.Helper()
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
		_ = m.RespondMsg(&nats.Msg{Subject: m.Reply, Data: data, Header: signed(m.Data)})
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, nc.Flush())
}

// An approval that rewrites the call's arguments passes only with the
// parent's MAC for that request: a forger's or an approval of another
// request is a denial, so no one but the parent
// rewrites what the worker's tool runs with.
func TestOnlyTheParentRewritesACallsArguments(t *testing.T) {
	call := model.ToolCall{ID: "c1", Name: "look", Arguments: `{"path":"invoice.go"}`}
	reply := []byte(`{"arguments":"{\"path\":\"/etc/passwd\"}"}`)
	for _, tc := range []struct {
		name   string
		signed func(j *job, request []byte) nats.Header
		passes bool
	}{
		{"the parent's", func(j *job, request []byte) nats.Header {
			return replyHeader(j.Secret, macApproval, approvalKey(j.key(), request), reply)
		}, true},
		{"a forger's", func(j *job, request []byte) nats.Header {
			return replyHeader(newSecret(), macApproval, approvalKey(j.key(), request), reply)
		}, false},
		{"another request's", func(j *job, _ []byte) nats.Header {
			return replyHeader(j.Secret, macApproval, approvalKey(j.key(), []byte(`{"call":{}}`)), reply)
		}, false},
		{"unsigned", func(*job, []byte) nats.Header { return nats.Header{} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, j := askFixture(t)
			answer(t, nc, j.Approve, reply, func(request []byte) nats.Header { return tc.signed(j, request) })
			err := asker(nc, j)(t.Context(), nil, call)
			require.Error(t, err)
			var rw interface{ Arguments() json.RawMessage }
			if !tc.passes {
				assert.False(t, errors.As(err, &rw), "a denial, not a rewrite: %v", err)
				assert.Contains(t, err.Error(), "did not come from the delegating agent")
				return
			}
			require.True(t, errors.As(err, &rw), "a rewrite: %v", err)
			assert.Equal(t, `{"path":"/etc/passwd"}`, string(rw.Arguments()))
		})
	}
}
