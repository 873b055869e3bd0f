package offshoot_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/runner"
)

// One policy decides the calls of the main agent and of the agents it
// starts, each named: CanUseTool is told which agent asks; a denial is the
// call's result the model reads, and its ToolInvoked record says Denied.
func TestOnePolicyDecidesEveryAgentsCalls(t *testing.T) {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You review code"),
			scripted.ToolCall("write_file", `{"file_path":"review.md","content":"ok"}`)),
		scripted.When(scripted.SystemContains("You review code"), scripted.Text("Reviewed.")),
		scripted.ToolCall("write_file", `{"file_path":"notes.md","content":"x"}`),
		scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review","prompt":"Review it."}`),
		scripted.ToolCall("read_file", `{"file_path":"secrets/key"}`),
		scripted.Text("Done."),
	)
	var mu sync.Mutex
	var asked []string
	policy := &permission.Policy{
		Settings: permission.Settings{
			Ask:  permission.Rules{{Tool: "Write"}},
			Deny: permission.Rules{{Tool: "Read", Specifier: "./secrets/**"}},
		},
		CanUseTool: func(_ context.Context, r permission.Request) (permission.Decision, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, r.AgentType+" "+r.Tool)
			if r.AgentType == "reviewer" {
				return permission.Decision{Reason: "the user keeps reviews out of the tree"}, nil
			}
			return permission.Decision{Allow: true}, nil
		},
	}
	c, err := offshoot.NewClient(offshoot.Options{
		Model:       m,
		Agents:      map[string]agents.Definition{"reviewer": {Description: "Reviews code.", Prompt: "You review code."}},
		Permissions: policy,
	})
	require.NoError(t, err)
	defer c.Close()
	var denied []string
	unsubscribe, err := bus.Subscribe(c.Session().Bus(), "test", func(_ context.Context, _ bus.Envelope, e runner.ToolInvoked) error {
		mu.Lock()
		defer mu.Unlock()
		if e.Denied {
			denied = append(denied, e.Result)
		}
		return nil
	})
	require.NoError(t, err)
	defer unsubscribe()

	results := toolResults(collect(t, c, "Review main.go."))
	require.Len(t, results, 3)
	assert.True(t, results[0].Success, "the user allowed the main agent's write")
	assert.False(t, results[2].Success)
	assert.Equal(t, "Permission to use the tool 'read_file' was denied: the deny rule Read(./secrets/**) of the settings", results[2].Summary)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{" write_file", "reviewer write_file"}, asked)
	assert.Equal(t, []string{
		"Permission to use the tool 'write_file' was denied: the user keeps reviews out of the tree",
		"Permission to use the tool 'read_file' was denied: the deny rule Read(./secrets/**) of the settings",
	}, denied)
}

// The policy's hooks run for every agent's calls, each named: PreToolUse
// before (its deny is the call's result), PostToolUse after (what it says
// is added to the result the model reads).
func TestThePolicysHooksRunForEveryAgent(t *testing.T) {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You review code"), scripted.ToolCall("read_file", `{"file_path":"notes.md"}`)),
		scripted.When(scripted.SystemContains("You review code"), scripted.Text("Reviewed.")),
		scripted.ToolCall("write_file", `{"file_path":"notes.md","content":"x"}`),
		scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review","prompt":"Review it."}`),
		scripted.ToolCall("ls", `{}`),
		scripted.Text("Done."),
	)
	var mu sync.Mutex
	var pre, post []string
	policy := &permission.Policy{Hooks: &hooks.Hooks{List: []hooks.Hook{
		{Event: hooks.PreToolUse, Func: func(_ context.Context, in hooks.Input) (hooks.Output, error) {
			mu.Lock()
			defer mu.Unlock()
			pre = append(pre, in.AgentType+" "+in.ToolName)
			if in.ToolName == "LS" {
				return hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no listing"}, nil
			}
			return hooks.Output{}, nil
		}},
		{Event: hooks.PostToolUse, Matcher: "Read|Write", Func: func(_ context.Context, in hooks.Input) (hooks.Output, error) {
			mu.Lock()
			defer mu.Unlock()
			post = append(post, in.AgentType+" "+in.ToolName)
			return hooks.Output{AdditionalContext: "Checked by the hook."}, nil
		}},
	}}}
	c, err := offshoot.NewClient(offshoot.Options{
		Model:       m,
		Agents:      map[string]agents.Definition{"reviewer": {Description: "Reviews code.", Prompt: "You review code."}},
		Permissions: policy,
	})
	require.NoError(t, err)
	defer c.Close()
	results := toolResults(collect(t, c, "Review main.go."))
	require.Len(t, results, 3)
	assert.Equal(t, "Permission to use the tool 'ls' was denied: a PreToolUse hook denied it: no listing", results[2].Summary)
	var childRead string
	for _, call := range m.Calls() {
		msgs := call.Request.Messages
		if last := msgs[len(msgs)-1]; last.Role == model.RoleTool && strings.Contains(last.Content, "x") && strings.Contains(msgs[0].Content, "You review code") {
			childRead = last.Content
		}
	}
	assert.True(t, strings.HasSuffix(childRead, "\n\nChecked by the hook."), "the child's model reads the hook's context: %q", childRead)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{" Write", " Task", "reviewer Read", " LS"}, pre)
	assert.Equal(t, []string{" Write", "reviewer Read"}, post)
}

// A PreToolUse hook's changed input is what the rules see and what runs.
func TestAHooksChangedInputIsWhatRuns(t *testing.T) {
	m := scripted.New(
		scripted.ToolCall("write_file", `{"file_path":"a.md","content":"x"}`),
		scripted.ToolCall("write_file", `{"file_path":"c.md","content":"x"}`),
		scripted.Text("Done."),
	)
	rewrite := func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		if strings.Contains(string(in.ToolInput), "a.md") {
			return hooks.Output{UpdatedInput: []byte(`{"file_path":"b.md","content":"x"}`)}, nil
		}
		return hooks.Output{UpdatedInput: []byte(`{"file_path":"secret.md","content":"x"}`)}, nil
	}
	c, err := offshoot.NewClient(offshoot.Options{Model: m, Permissions: &permission.Policy{
		Settings: permission.Settings{Deny: permission.Rules{{Tool: "Write", Specifier: "secret.md"}}},
		Hooks:    &hooks.Hooks{List: []hooks.Hook{{Event: hooks.PreToolUse, Func: rewrite}}},
	}})
	require.NoError(t, err)
	defer c.Close()
	results := toolResults(collect(t, c, "Write."))
	require.Len(t, results, 2)
	assert.True(t, results[0].Success, results[0].Summary)
	assert.Contains(t, results[0].Summary, "b.md")
	assert.Equal(t, "Permission to use the tool 'write_file' was denied: the deny rule Write(secret.md) of the settings", results[1].Summary)
}
