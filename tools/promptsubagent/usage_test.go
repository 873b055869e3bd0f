package promptsubagent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// Every finished child leaves one runner.Spent record in the parent
// session, with the dispatch's result — whether the child succeeded or
// failed — carrying its agent id and what it spent, marked as charged: the
// parent's ChildUsage counts it once. A snapshot of the parent carries the
// records through JSON.
func TestEveryFinishedChildLeavesAUsageRecord(t *testing.T) {
	usage := model.Usage{InputTokens: 20, OutputTokens: 5, TotalTokens: 25}
	tests := []struct {
		name    string
		opts    promptsubagent.Options
		child   []scripted.Turn
		success bool
		spent   int
	}{
		{"a child that completes", promptsubagent.Options{}, []scripted.Turn{
			scripted.ToolCall("ls", `{}`).WithUsage(usage), scripted.Text("two files").WithUsage(usage),
		}, true, 2 * usage.TotalTokens},
		{"a child that fails at max turns", promptsubagent.Options{MaxTurns: 1}, []scripted.Turn{
			scripted.ToolCall("ls", `{}`).WithUsage(usage),
		}, false, usage.TotalTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.opts)
			m := scripted.New(
				scripted.When(scripted.SystemContains(workerText), tt.child...),
				scripted.ToolCall("dispatch_subagent", args(t, adHoc("List the files."))),
				scripted.Text("ok"),
			)
			resp := w.evaluate(t, m)
			ti, _ := session.Latest[runner.ToolInvoked](w.s)
			require.Equal(t, tt.success, ti.Success, ti.Result)

			require.Equal(t, 1, session.Len[runner.Spent](w.s))
			cu, _ := session.Latest[runner.Spent](w.s)
			assert.Equal(t, runner.Spent{Source: "agent-1", Usage: model.Usage{
				InputTokens: tt.spent / 25 * 20, OutputTokens: tt.spent / 25 * 5, TotalTokens: tt.spent,
			}, Counted: true}, cu)
			assert.Equal(t, tt.spent, resp.ChildUsage.TotalTokens, "counted once")

			snap := sessiontest.RoundTrip(t, w.s, w.s.Registry())
			restored := session.SliceOfSnapshot[runner.Spent](snap)
			require.Equal(t, 1, restored.Len())
			assert.Equal(t, cu, restored.At(0), "the record survives snapshot JSON, mark included")
		})
	}
}
