package planning_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

func TestSection(t *testing.T) {
	sec := planning.Section(planning.Options{Title: "Plan Your Work"})
	require.NoError(t, sec.Err())
	assert.Equal(t, "plan-your-work", sec.Key())
	p, err := prompt.New("test", "planning", prompt.Markdown[prompt.NoParams]("Role", "You fix bugs."), sec)
	require.NoError(t, err)
	r, err := p.Render()
	require.NoError(t, err)
	assert.Contains(t, r.Text, "## 2. Plan Your Work\n\nUse the planning tools")
	assert.Equal(t, []string{"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan"}, r.Tools.Names())

	// The section holds no session: its tools serve any session.
	for _, objective := range []string{"one", "two"} {
		s, err := session.New()
		require.NoError(t, err)
		require.NoError(t, r.Tools.Install(context.Background(), s))
		callOn(t, r.Tools, s, "planning_setup_plan", jsonArgs(t, planning.SetupParams{Objective: objective}))
		plan, found := planning.CurrentPlan(s)
		assert.True(t, found)
		assert.Equal(t, objective, plan.Objective)
		require.NoError(t, s.Close())
	}
	assert.Equal(t, "planning", planning.Section(planning.Options{}).Key())
}
