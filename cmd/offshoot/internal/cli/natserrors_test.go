package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that refuses a subject is no longer silent: the command warns,
// naming the permissions to give and where they are listed.
func TestNATSPermissionViolationIsAWarning(t *testing.T) {
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "worker", Password: "pw", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{"offshoot.aftertool.>"}},
		}}}}
	s, err := server.NewServer(opts)
	require.NoError(t, err)
	go s.Start()
	require.True(t, s.ReadyForConnections(30*time.Second), "the embedded NATS server did not start")
	defer s.Shutdown()

	var stderr bytes.Buffer // read once the handler ran: it runs before the closed one
	e := &Env{Stderr: &stderr}
	closed := make(chan struct{})
	nc, err := nats.Connect(s.ClientURL(), nats.UserInfo("worker", "pw"),
		nats.ErrorHandler(natsErrors(e.Logger(), "worker")),
		nats.ClosedHandler(func(*nats.Conn) { close(closed) })) // runs after the error handler: one queue
	require.NoError(t, err)
	require.NoError(t, nc.Publish("offshoot.aftertool.x.y", []byte("{}")))
	require.NoError(t, nc.Flush())
	nc.Close()
	<-closed

	out := stderr.String()
	assert.Contains(t, out, "warning: the NATS server refuses the worker a subject it needs")
	assert.Contains(t, out, "docs/remote.md (Server configuration)")
	assert.Contains(t, out, "offshoot.aftertool.x.y")
}
