package offshoot_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// An Approver is the program's last word on each call the permission path
// lets run: its error is the denial the model reads; a call the policy
// denies never reaches it.
func TestApproverAfterThePolicy(t *testing.T) {
	for _, tt := range []struct {
		name        string
		policy      *permission.Policy
		approve     bool
		wantAsked   int
		wantWritten bool
		wantDenial  string
	}{
		{"approver alone allows", nil, true, 1, true, ""},
		{"approver alone denies", nil, false, 1, false, "Permission to use the tool 'write_file' was denied: not today"},
		{"policy allows, approver denies", &permission.Policy{}, false, 1, false, "not today"},
		{"policy denies first", &permission.Policy{Mode: permission.Plan}, true, 0, false, "plan mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted.New(
				scripted.ToolCalls(model.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"file_path":"notes.md","content":"hi"}`}),
				scripted.Text("Done."),
			)
			asked := 0
			c := newClient(t, m, offshoot.Options{Permissions: tt.policy, Approver: func(_ context.Context, _ *tools.Invocation, call model.ToolCall) error {
				asked++
				if tt.approve {
					return nil
				}
				return errors.New("not today")
			}})
			res := final(t, collect(t, c, "Write the notes."))
			require.NoError(t, res.Err)
			assert.Equal(t, tt.wantAsked, asked)
			_, written := vfs.Files(c.Session()).Get("notes.md")
			assert.Equal(t, tt.wantWritten, written)
			if tt.wantDenial != "" {
				calls := m.Calls()
				last := calls[len(calls)-1].Request.Messages
				assert.Contains(t, last[len(last)-1].Content, tt.wantDenial)
			}
		})
	}
}
