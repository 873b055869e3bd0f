package hooks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/hooks"
)

func TestParseSettings(t *testing.T) {
	h, warnings, err := hooks.ParseSettings([]byte(`{
		"permissions": {"allow": ["Bash(go test:*)"]},
		"env": {"GOFLAGS": "-mod=mod", "ANTHROPIC_API_KEY": "sk-…", "BAD NAME": "x", "N": 3},
		"hooks": {
			"PreToolUse": [
				{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]},
				{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}, {"type": "prompt", "prompt": "is it fine?"}]},
				{"matcher": "Bash(", "hooks": [{"type": "command", "command": "never"}]}
			],
			"Stop": [{"hooks": [{"type": "command", "command": "go test ./...", "timeout": 0.5}, {"type": "command", "command": "x", "timeout": -1}]}],
			"Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "notify-send hi"}]}],
			"PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],
			"SessionStart": {"not": "a list"},
			"SessionEnd": [{"hooks": [{"type": "command"}, 7]}]
		}
	}`))
	require.NoError(t, err)
	require.Equal(t, []hooks.Hook{
		{Event: hooks.PreToolUse, Matcher: "Bash", Command: "./guard.sh", Timeout: 30 * time.Second},
		{Event: hooks.PreToolUse, Matcher: "Write|Edit", Command: "./fmt.sh"},
		{Event: hooks.Stop, Command: "go test ./...", Timeout: 500 * time.Millisecond},
		{Event: hooks.Notification, Matcher: "permission_prompt", Command: "notify-send hi"},
	}, h.List)
	require.Equal(t, map[string]string{"GOFLAGS": "-mod=mod"}, h.Env)
	all := strings.Join(warnings, "\n")
	for _, w := range []string{
		"env.ANTHROPIC_API_KEY: a model's key",
		"env.BAD NAME: not a variable's name",
		"env.N: its value is not a string",
		`hooks.PreToolUse[1].hooks[1]: hooks of type "prompt" are not supported`,
		`hooks.PreToolUse[2]: its matcher "Bash(" is not a regular expression`,
		"hooks.Stop[0].hooks[1]: its timeout -1 is not a number of seconds",
		"hooks.PermissionRequest: offshoot has no such event",
		"hooks.SessionStart: a list of",
		"hooks.SessionEnd[0].hooks[0]: it has no command",
		"hooks.SessionEnd[0].hooks[1]: a hook is",
	} {
		require.Contains(t, all, w)
	}
	require.Len(t, warnings, 10)
}

func TestParseSettingsBounds(t *testing.T) {
	_, _, err := hooks.ParseSettings([]byte(`["not", "an", "object"]`))
	require.ErrorContains(t, err, "not a JSON object")
	_, _, err = hooks.ParseSettings([]byte(strings.Repeat(" ", 1<<20+1)))
	require.ErrorContains(t, err, "at most")

	var b strings.Builder
	b.WriteString(`{"hooks": {"Stop": [{"hooks": [`)
	for i := range 150 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"type": "command", "command": "true"}`)
	}
	b.WriteString(`]}]}}`)
	h, warnings, err := hooks.ParseSettings([]byte(b.String()))
	require.NoError(t, err)
	require.Len(t, h.List, 100)
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], "more than 100 hooks")

	h, warnings, err = hooks.ParseSettings([]byte(`{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`))
	require.NoError(t, err)
	require.Empty(t, h.List)
	require.Equal(t, []string{"disableAllHooks is true: none of the file's hooks runs"}, warnings)
}

func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./x.sh", "timeout": 5}]}]}}`))
	f.Add([]byte(`{"env": {"A": "b"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, warnings, err := hooks.ParseSettings(data)
		if err != nil {
			require.Empty(t, h.List)
			return
		}
		require.LessOrEqual(t, len(h.List), 100)
		require.LessOrEqual(t, len(h.Env), 200)
		for _, k := range h.List {
			require.NotEmpty(t, k.Command)
			require.LessOrEqual(t, k.Timeout, 10*time.Minute)
			require.GreaterOrEqual(t, k.Timeout, time.Duration(0))
		}
		for name := range h.Env {
			require.NotContains(t, strings.ToUpper(name), "API_KEY")
		}
		_ = warnings
	})
}
