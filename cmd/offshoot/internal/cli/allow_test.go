package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/permission"
)

func TestParseAllow(t *testing.T) {
	tests := []struct {
		values []string
		want   allowed
		err    string
	}{
		{nil, allowed{}, ""},
		{[]string{"bash"}, allowed{bash: true}, ""},
		{[]string{"Bash"}, allowed{bash: true}, ""},
		{[]string{"bash=unconfined"}, allowed{bash: true, unconfined: true}, ""},
		{[]string{"bash", "bash=unconfined"}, allowed{bash: true, unconfined: true}, ""},
		{[]string{"webfetch"}, allowed{webFetch: true}, ""},
		{[]string{"WebFetch", "bash"}, allowed{bash: true, webFetch: true}, ""},
		{[]string{"python"}, allowed{}, "--allow python: no tool is allowed so; give bash, bash=unconfined to run commands without a sandbox, or webfetch"},
		{[]string{"bash=yes"}, allowed{}, "--allow bash=yes"},
	}
	for _, tt := range tests {
		got, err := parseAllow(tt.values)
		if tt.err != "" {
			require.Error(t, err, "%q", tt.values)
			assert.Contains(t, err.Error(), tt.err)
			assert.Equal(t, ExitUsage, Code(err, true))
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%q", tt.values)
	}
}

// TestBashTool: --allow bash gives the tool inside bubblewrap; where the
// commands would run unconfined, it takes bash=unconfined, or a user
// asked before each command.
func TestBashTool(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the bash tool needs a Unix system")
	}
	e := approvalEnv(t, "")
	tool, err := e.bashTool(nil, false)
	require.NoError(t, err)
	assert.Nil(t, tool, "no --allow, no tool")

	tool, err = e.bashTool([]string{"bash=unconfined"}, false)
	require.NoError(t, err)
	require.NotNil(t, tool)
	stderr := e.Stderr.(*bytes.Buffer).String()
	if tool.Confined() {
		assert.Empty(t, stderr)
	} else {
		assert.Equal(t, 1, strings.Count(stderr, "run unconfined"), "said once, at start: %s", stderr)
		for _, want := range []string{"unconfined", "your keys", "offshoot's environment"} {
			assert.Contains(t, stderr, want)
		}
	}
	require.NoError(t, tool.Close())

	tool, err = e.bashTool([]string{"bash"}, false)
	if err != nil {
		assert.Contains(t, err.Error(), "--allow bash=unconfined")
		assert.Equal(t, ExitUsage, Code(err, true))
		tool, err = e.bashTool([]string{"bash"}, true)
		require.NoError(t, err, "asked before each command")
		assert.False(t, tool.Confined())
	} else {
		assert.True(t, tool.Confined(), "bubblewrap works here")
	}
	require.NoError(t, tool.Close())
}

// TestWebFetchTool: --allow webfetch gives the web_fetch tool, and
// nothing else does; the light model reads the pages.
func TestWebFetchTool(t *testing.T) {
	tool, err := webFetchTool([]string{"bash"}, nil)
	require.NoError(t, err)
	assert.Nil(t, tool)
	router, err := model.NewStaticRouter(map[string]model.Model{model.Main: scripted.New(), model.Light: scripted.New()}, nil)
	require.NoError(t, err)
	tool, err = webFetchTool([]string{"webfetch"}, router)
	require.NoError(t, err)
	require.NotNil(t, tool)
	assert.Equal(t, "web_fetch", tool.Spec().Name)
	assert.Contains(t, tool.Spec().Description, "a small model reads the page")
}

// TestAskAtTerminal: each call is asked about, showing it and the agent
// making it; yes runs it, anything else refuses it, always runs later
// calls like it unasked — the rules suggested, not the whole tool — and
// has them remembered for the project.
func TestAskAtTerminal(t *testing.T) {
	ctx := context.Background()
	var asked []string
	var next []string
	ask := func(q string) string {
		asked = append(asked, q)
		a := next[0]
		next = next[1:]
		return a
	}
	var remembered permission.Rules
	canUse := askAtTerminal(ask, false, func(rs permission.Rules) { remembered = append(remembered, rs...) })
	call := func(agent, name, command string) permission.Decision {
		r := permission.Request{Tool: name, AgentType: agent, Input: json.RawMessage(`{"command": "` + command + `"}`)}
		if name == "bash" {
			r.Suggestions = permission.Rules{{Tool: "Bash", Specifier: strings.Fields(command)[0] + " " + strings.Fields(command)[1] + ":*"}}
		}
		d, err := canUse(ctx, r)
		require.NoError(t, err)
		return d
	}
	next = []string{"y", "", "no", "maybe", "a", "n"}
	require.True(t, call("", "bash", "make test").Allow)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "The agent wants to run a command")
	assert.Contains(t, asked[0], "$ make test")
	assert.Contains(t, asked[0], "UNCONFINED")
	assert.Contains(t, asked[0], "your keys", "the question says what unconfined means")
	assert.Contains(t, asked[0], "Run it? [y]es, [N]o, [a]lways allow Bash(make test:*) in this project:")
	for range 3 {
		d := call("builder", "bash", "rm -rf build")
		require.False(t, d.Allow)
		assert.Contains(t, d.Reason, "the user did not allow it")
	}
	assert.Contains(t, asked[1], "The builder agent wants to run a command")
	require.True(t, call("", "bash", "go vet").Allow)
	require.True(t, call("", "bash", "go vet -x ./...").Allow, "always: not asked again")
	assert.Equal(t, "[Bash(go vet:*)]", fmt.Sprint(remembered), "and remembered")
	assert.Len(t, asked, 5)
	next = append(next, "n")
	require.False(t, call("", "bash", "rm -rf build").Allow, "always is for calls like the one allowed, not the whole tool")
	assert.Len(t, asked, 6)
	require.False(t, call("", "mcp__github__create_issue", "x").Allow)
	assert.Contains(t, asked[6], "The agent wants to use mcp__github__create_issue with")
	assert.Contains(t, asked[6], "Allow it? [y]es, [N]o:", "no suggestion, no always")
	assert.Contains(t, toolQuestion(permission.Request{Tool: "bash", AskedBy: "the ask rule Bash(git push:*)", Input: json.RawMessage(`{"command":"git push"}`)}, true),
		"The agent (the ask rule Bash(git push:*) asks) wants to run a command in a sandbox")
	assert.Empty(t, next)

	confined := bashQuestion("ls\x1b[2J", true)
	assert.Contains(t, confined, "in a sandbox")
	assert.NotContains(t, confined, "\x1b", "control characters are not shown raw")
}

// TestCheckConfinement: commands that would run unconfined need
// bash=unconfined, or a user asked before each.
func TestCheckConfinement(t *testing.T) {
	tests := []struct {
		confined bool
		a        allowed
		ask      bool
		ok       bool
	}{
		{true, allowed{bash: true}, false, true},
		{false, allowed{bash: true}, false, false},
		{false, allowed{bash: true, unconfined: true}, false, true},
		{false, allowed{bash: true}, true, true},
	}
	for _, tt := range tests {
		err := checkConfinement(tt.confined, tt.a, tt.ask)
		if tt.ok {
			assert.NoError(t, err, "%+v", tt)
			continue
		}
		require.Error(t, err, "%+v", tt)
		assert.Equal(t, ExitUsage, Code(err, true))
		for _, want := range []string{"bubblewrap", "unconfined", "--allow bash=unconfined", "apt install bubblewrap"} {
			assert.Contains(t, err.Error(), want)
		}
	}
}
