package task_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
)

// A Task call that ran an agent returns, among its result's events, one
// runner.Spent record of what the agent spent, marked as counted (the
// caller's run counted it live) — whether the agent completed or failed.
func TestTaskRecordsTheChildsUsage(t *testing.T) {
	usage := model.Usage{InputTokens: 30, OutputTokens: 6, TotalTokens: 36}
	tests := []struct {
		name    string
		light   []scripted.Turn
		success bool
		want    model.Usage
	}{
		{"completed", []scripted.Turn{scripted.Text("Login is in src/login.go.").WithUsage(usage)}, true, usage},
		{"failed", []scripted.Turn{scripted.Fail(errors.New("the server is down"))}, false, model.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, worldConfig{light: tt.light})
			out := w.call(t, w.main, input("reader", "Find Login", "Where is Login?"))
			require.Equal(t, tt.success, out.Success, out.Text)
			var records []runner.Spent
			for _, ev := range out.Events {
				if cu, ok := ev.(runner.Spent); ok {
					records = append(records, cu)
				}
			}
			assert.Equal(t, []runner.Spent{{Source: "agent-1", Usage: tt.want, Counted: true}}, records)
		})
	}
}
