package hooks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/hooks"
)

func TestRunMatchesAndMerges(t *testing.T) {
	answer := func(o hooks.Output) hooks.Func {
		return func(context.Context, hooks.Input) (hooks.Output, error) { return o, nil }
	}
	h := &hooks.Hooks{List: []hooks.Hook{
		{Event: hooks.PreToolUse, Matcher: "Bash", Func: answer(hooks.Output{PermissionDecision: hooks.Allow})},
		{Event: hooks.PreToolUse, Matcher: "Write|Edit", Func: answer(hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no edits"})},
		{Event: hooks.PreToolUse, Func: answer(hooks.Output{AdditionalContext: "seen"})},
		{Event: hooks.PreToolUse, Func: func(context.Context, hooks.Input) (hooks.Output, error) { panic("boom") }},
		{Event: hooks.PreToolUse, Func: func(context.Context, hooks.Input) (hooks.Output, error) {
			return hooks.Output{}, errors.New("broken")
		}},
		{Event: hooks.Stop, Func: answer(hooks.Output{Block: true, Reason: "not yet"})},
	}}
	for _, tt := range []struct {
		name string
		in   hooks.Input
		want hooks.Output
	}{
		{"bash allowed", hooks.Input{Event: hooks.PreToolUse, ToolName: "Bash"}, hooks.Output{PermissionDecision: hooks.Allow, AdditionalContext: "seen"}},
		{"edit denied", hooks.Input{Event: hooks.PreToolUse, ToolName: "Edit"}, hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no edits", AdditionalContext: "seen"}},
		{"matcher is whole", hooks.Input{Event: hooks.PreToolUse, ToolName: "Bashful"}, hooks.Output{AdditionalContext: "seen"}},
		{"other event", hooks.Input{Event: hooks.Stop}, hooks.Output{Block: true, Reason: "not yet"}},
		{"no hook", hooks.Input{Event: hooks.SessionEnd}, hooks.Output{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Run(context.Background(), tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	require.True(t, h.Has(hooks.Stop))
	require.False(t, h.Has(hooks.SessionStart))
	var none *hooks.Hooks
	out, err := none.Run(context.Background(), hooks.Input{Event: hooks.Stop})
	require.NoError(t, err)
	require.Equal(t, hooks.Output{}, out)
}

// TestMatcherAsClaudeCodeReadsIt: a matcher of names matches exactly the
// names it lists; any other is a regular expression found anywhere in the
// tool's name.
func TestMatcherAsClaudeCodeReadsIt(t *testing.T) {
	for _, tt := range []struct {
		matcher, tool string
		want          bool
	}{
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false},
		{"Write|Edit", "Edit", true},
		{"Write|Edit", "MultiEdit", false},
		{"Write, Edit", "Write", true},
		{"mcp__github", "mcp__github__create_issue", false},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"^Notebook", "NotebookEdit", true},
		{"Notebook.*", "NotebookEdit", true},
		{"^Bash$", "Bash", true},
		{"^Bash$", "BashOutput", false},
		{"Edit(", "Edit(", true},
		{"Edit(", "Edit", false},
	} {
		h := &hooks.Hooks{List: []hooks.Hook{{Event: hooks.PreToolUse, Matcher: tt.matcher, Func: func(context.Context, hooks.Input) (hooks.Output, error) {
			return hooks.Output{AdditionalContext: "matched"}, nil
		}}}}
		out, err := h.Run(context.Background(), hooks.Input{Event: hooks.PreToolUse, ToolName: tt.tool})
		require.NoError(t, err)
		require.Equal(t, tt.want, out.AdditionalContext == "matched", "%q on %q", tt.matcher, tt.tool)
	}
}
