package scripted_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

func TestMatchers(t *testing.T) {
	req := conv(
		model.SystemMessage("You are the planner."),
		model.UserMessage("first task"),
		model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "grep"}),
		model.Message{Role: model.RoleTool, ToolCallID: "c1", Content: "matches"},
		model.UserMessage("second task"),
		model.ToolMessage("c2", "ls", "files"),
	)
	tests := []struct {
		m    scripted.Matcher
		want bool
		desc string
	}{
		{scripted.SystemContains("planner"), true, `system prompt contains "planner"`},
		{scripted.SystemContains("worker"), false, ""},
		{scripted.LastUserContains("second"), true, `last user message contains "second"`},
		{scripted.LastUserContains("first"), false, ""},
		{scripted.HasToolResult("grep"), true, `has a result of tool "grep"`},
		{scripted.HasToolResult("ls"), true, ""},
		{scripted.HasToolResult("read"), false, ""},
		{scripted.All(scripted.SystemContains("planner"), scripted.HasToolResult("ls")), true,
			`system prompt contains "planner" and has a result of tool "ls"`},
		{scripted.All(scripted.SystemContains("planner"), scripted.HasToolResult("read")), false, ""},
		{scripted.MatchFunc("has tools", func(r *model.Request) bool { return len(r.Tools) > 0 }), false, "has tools"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.m.Match(req), tt.m.String())
		if tt.desc != "" {
			assert.Equal(t, tt.desc, tt.m.String())
		}
	}
	empty := conv()
	assert.False(t, scripted.LastUserContains("").Match(empty))
	assert.False(t, scripted.SystemContains("").Match(empty))
	assert.False(t, scripted.HasToolResult("x").Match(empty))
}
