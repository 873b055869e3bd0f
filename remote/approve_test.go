package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
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
	return nc, &job{Token: "t", Secret: newSecret(), Reply: "offshoot.progress.x.t", Approve: "offshoot.approve.x.t", AfterTool: "offshoot.aftertool.x.t"}
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
// parent's MAC for that request: a forger's, an after-tool reply's or an
// approval of another request is a denial, so no one but the parent
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
		{"an after-tool reply", func(j *job, request []byte) nats.Header {
			return replyHeader(j.Secret, macAfterNote, approvalKey(j.key(), request), reply)
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

// A note for the child's model passes only with the parent's MAC for
// that request; otherwise, or when the parent cannot be asked, the
// result goes as it is and the worker's log says why.
func TestOnlyTheParentAddsANoteToAResult(t *testing.T) {
	call := model.ToolCall{ID: "c1", Name: "look", Arguments: `{"path":"invoice.go"}`}
	reply := []byte(`{"note":"checked"}`)
	for _, tc := range []struct {
		name   string
		signed func(j *job, request []byte) nats.Header // nil: no one answers
		want   string
		logged string
	}{
		{"the parent's", func(j *job, request []byte) nats.Header {
			return replyHeader(j.Secret, macAfterNote, approvalKey(j.key(), request), reply)
		}, "checked", ""},
		{"a forger's", func(j *job, request []byte) nats.Header {
			return replyHeader(newSecret(), macAfterNote, approvalKey(j.key(), request), reply)
		}, "", "did not come from the delegating agent"},
		{"an approval", func(j *job, request []byte) nats.Header {
			return replyHeader(j.Secret, macApproval, approvalKey(j.key(), request), reply)
		}, "", "did not come from the delegating agent"},
		{"another request's", func(j *job, _ []byte) nats.Header {
			return replyHeader(j.Secret, macAfterNote, approvalKey(j.key(), []byte(`{"call":{}}`)), reply)
		}, "", "did not come from the delegating agent"},
		{"no parent", nil, "", "could not be told"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, j := askFixture(t)
			if tc.signed != nil {
				answer(t, nc, j.AfterTool, reply, func(request []byte) nats.Header { return tc.signed(j, request) })
			}
			var log bytes.Buffer
			note := teller(nc, j, slog.New(slog.NewTextHandler(&log, nil)))(t.Context(), nil, call, "12 lines")
			assert.Equal(t, tc.want, note)
			if tc.logged == "" {
				assert.Empty(t, log.String())
			} else {
				assert.Contains(t, log.String(), tc.logged)
				assert.Contains(t, log.String(), "the result goes as it is")
			}
		})
	}
}

// What a worker tells the parent of a call fits an approval request's
// bound: a longer result is cut, saying so; a call that does not fit
// even without its result is not told.
func TestAnAfterToolRequestIsBounded(t *testing.T) {
	call := model.ToolCall{ID: "c1", Name: "look", Arguments: `{"path":"invoice.go"}`}
	for _, tc := range []struct {
		name   string
		result string
		cut    bool
	}{
		{"short", "12 lines", false},
		{"at the bound", strings.Repeat("x", maxApprovalBytes-200), false},
		{"long", strings.Repeat("x", 3*maxApprovalBytes), true},
		{"escaped when sent", strings.Repeat("\x01", maxApprovalBytes/2), true},
		{"runes", strings.Repeat("é", maxApprovalBytes), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := afterToolMessage(call, tc.result)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(data), maxApprovalBytes)
			var got afterToolRequest
			require.NoError(t, json.Unmarshal(data, &got))
			assert.Equal(t, call, got.Call)
			if !tc.cut {
				assert.Equal(t, tc.result, got.Result)
				return
			}
			kept, note, ok := strings.Cut(got.Result, "\n[")
			require.True(t, ok, "the cut is said")
			assert.True(t, strings.HasPrefix(tc.result, kept), "the start of the result is kept")
			assert.Greater(t, len(kept), maxApprovalBytes/8, "as much of it as fits")
			assert.Contains(t, note, "cut")
		})
	}
	_, err := afterToolMessage(model.ToolCall{Name: "write", Arguments: `{"text":"` + strings.Repeat("x", maxApprovalBytes) + `"}`}, "ok")
	require.Error(t, err)
}
