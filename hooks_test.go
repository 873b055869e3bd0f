package offshoot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
)

// seen records the inputs Go hooks were given.
type seen struct {
	mu  sync.Mutex
	ins []hooks.Input
}

func (s *seen) hook(ev hooks.Event, out func(hooks.Input) hooks.Output) hooks.Hook {
	return hooks.Hook{Event: ev, Func: func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		s.mu.Lock()
		s.ins = append(s.ins, in)
		s.mu.Unlock()
		if out == nil {
			return hooks.Output{}, nil
		}
		return out(in), nil
	}}
}

func (s *seen) events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, in := range s.ins {
		e := string(in.Event)
		if in.Source != "" {
			e += ":" + in.Source
		}
		if in.Trigger != "" {
			e += ":" + in.Trigger
		}
		if in.AgentType != "" {
			e += ":" + in.AgentType
		}
		out = append(out, e)
	}
	return out
}

// lastUser is the last user message a model call sent.
func lastUser(c scripted.Call) string {
	msgs := c.Request.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == model.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// Every event the client runs hooks at, with Go hooks: SessionStart's
// context and UserPromptSubmit's go with the prompt, SubagentStart's to
// the child, SubagentStop and Stop may keep their agent working,
// SessionEnd runs at Close.
func TestHooksAtEveryEvent(t *testing.T) {
	var s seen
	stops := 0
	h := &hooks.Hooks{List: []hooks.Hook{
		s.hook(hooks.SessionStart, func(in hooks.Input) hooks.Output { return hooks.Output{AdditionalContext: "The branch is main."} }),
		s.hook(hooks.UserPromptSubmit, func(in hooks.Input) hooks.Output {
			return hooks.Output{AdditionalContext: "Ticket 42 is open (" + in.Prompt + ")."}
		}),
		s.hook(hooks.SubagentStart, func(hooks.Input) hooks.Output { return hooks.Output{AdditionalContext: "Mind the flaky test."} }),
		s.hook(hooks.SubagentStop, func(in hooks.Input) hooks.Output {
			assert.NotEmpty(t, in.LastAssistantMessage)
			return hooks.Output{Block: !in.StopHookActive, Reason: "Say which test."}
		}),
		s.hook(hooks.Stop, func(in hooks.Input) hooks.Output {
			stops++
			if stops == 1 {
				assert.Equal(t, "Done.", in.LastAssistantMessage)
			}
			return hooks.Output{Block: !in.StopHookActive, Reason: "Run the tests first."}
		}),
		s.hook(hooks.SessionEnd, nil),
	}}
	m := scripted.New(
		scripted.When(scripted.SystemContains("You watch builds."), scripted.Text("The build is red."), scripted.Text("TestFlaky fails.")),
		scripted.ToolCall("Task", `{"subagent_type":"watcher","description":"Watch","prompt":"Watch the build."}`),
		scripted.Text("Done."),
		scripted.Text("The tests ran: TestFlaky fails."),
	)
	opts := offshoot.Options{Model: m, Agents: testAgents, Hooks: h, Subagents: ids()}
	c, err := offshoot.NewClient(opts)
	require.NoError(t, err)

	res := final(t, collect(t, c, "How is the build?"))
	require.NoError(t, res.Err)
	assert.Equal(t, "The tests ran: TestFlaky fails.", res.Text)
	assert.Equal(t, 3, res.Turns, "the turns of both evaluations")
	require.NoError(t, c.Close())

	calls := m.Calls()
	require.Len(t, calls, 5)
	assert.Equal(t, "How is the build?\n\nThe branch is main.\n\nTicket 42 is open (How is the build?).", lastUser(calls[0]))
	assert.Equal(t, "Watch the build.\n\nMind the flaky test.", lastUser(calls[1]), "the child's first message")
	assert.Equal(t, "Say which test.", lastUser(calls[2]), "the child goes on")
	assert.Equal(t, "Run the tests first.", lastUser(calls[4]), "the main agent goes on")
	assert.Equal(t, 2, stops)
	assert.Equal(t, []string{"SessionStart:startup", "UserPromptSubmit", "SubagentStart:watcher", "SubagentStop:watcher",
		"SubagentStop:watcher", "Stop", "Stop", "SessionEnd"}, s.events())
	for _, in := range s.ins {
		assert.Equal(t, c.Session().ID(), in.SessionID, in.Event)
	}
}

// A blocked prompt fails the query with the reason, and nothing is sent.
func TestHooksUserPromptSubmitBlocks(t *testing.T) {
	var s seen
	h := &hooks.Hooks{List: []hooks.Hook{s.hook(hooks.UserPromptSubmit, func(in hooks.Input) hooks.Output {
		return hooks.Output{Block: strings.Contains(in.Prompt, "sk-"), Reason: "The prompt holds a key."}
	})}}
	m := scripted.New(scripted.Text("Hello."))
	c := newClient(t, m, offshoot.Options{Hooks: h})
	res := final(t, collect(t, c, "my key is sk-123"))
	require.ErrorContains(t, res.Err, "blocked the prompt, which was not sent: The prompt holds a key.")
	assert.Empty(t, m.Calls())
	res = final(t, collect(t, c, "hello"))
	require.NoError(t, res.Err)
	assert.Equal(t, "Hello.", res.Text)
}

// A Stop hook that always blocks keeps the main agent going eight times,
// not forever.
func TestHooksStopIsBounded(t *testing.T) {
	h := &hooks.Hooks{List: []hooks.Hook{{Event: hooks.Stop, Func: func(context.Context, hooks.Input) (hooks.Output, error) {
		return hooks.Output{Block: true, Reason: "Again."}, nil
	}}}}
	m := scripted.New(scripted.Repeat(scripted.Text("Done.")))
	c := newClient(t, m, offshoot.Options{Hooks: h})
	res := final(t, collect(t, c, "Work."))
	require.NoError(t, res.Err)
	assert.Len(t, m.Calls(), 1+8)
	assert.Equal(t, 9, res.Turns)
}

// SessionStart says "resume" when the client carries a stored
// conversation on.
func TestHooksSessionStartResume(t *testing.T) {
	st := store.NewMemory()
	var s seen
	h := &hooks.Hooks{List: []hooks.Hook{s.hook(hooks.SessionStart, nil)}}
	m := scripted.New(scripted.Repeat(scripted.Text("Hi.")))
	c, err := offshoot.NewClient(offshoot.Options{Model: m, Store: st, SessionID: "s1", Hooks: h})
	require.NoError(t, err)
	require.NoError(t, final(t, collect(t, c, "hello")).Err)
	require.NoError(t, c.Close())
	c, err = offshoot.NewClient(offshoot.Options{Model: m, Store: st, SessionID: "s1", Hooks: h})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.Equal(t, []string{"SessionStart:startup", "SessionStart:resume"}, s.events())
}

// PreCompact hooks run before a compaction, told its trigger; a block
// refuses an automatic one only.
func TestHooksPreCompact(t *testing.T) {
	var s seen
	h := &hooks.Hooks{List: []hooks.Hook{s.hook(hooks.PreCompact, func(hooks.Input) hooks.Output {
		return hooks.Output{Block: true, AdditionalContext: "Keep the dates."}
	})}}
	main := scripted.New(scripted.Repeat(scripted.Text("Noted.")))
	light := scripted.New(scripted.Text("Summary."))
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: main, model.Light: light}, nil)
	require.NoError(t, err)
	c, err := offshoot.NewClient(offshoot.Options{Router: r, Hooks: h})
	require.NoError(t, err)
	defer c.Close()
	for i := range 4 {
		require.NoError(t, final(t, collect(t, c, fmt.Sprintf("fact %d", i))).Err)
	}
	done, err := c.Compact(within(t), "")
	require.NoError(t, err, "a manual compaction is not refused")
	assert.Equal(t, "Summary.", done.Summary)
	require.Len(t, light.Calls(), 1)
	assert.Contains(t, light.Calls()[0].Request.Messages[0].Content, "Keep the dates.", "the hook's guidance")
	assert.Equal(t, []string{"PreCompact:manual"}, s.events())
	assert.Equal(t, "bypassPermissions", s.ins[0].PermissionMode, "no policy: every call runs")
}

// Command hooks from a settings file: a prompt blocked by exit 2, the
// context of plain stdout, and a Stop hook's JSON that keeps the agent
// going once.
func TestCommandHooksInAClient(t *testing.T) {
	dir := t.TempDir()
	settings := `{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "p=$(cat); case \"$p\" in *secret*) echo 'no secrets here' >&2; exit 2;; esac; echo \"cwd is $(basename \"$CLAUDE_PROJECT_DIR\")\""}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "grep -q '\"stop_hook_active\":true' && exit 0; echo '{\"decision\": \"block\", \"reason\": \"Check the tests.\"}'"}]}]
	}}`
	h, warnings, err := hooks.ParseSettings([]byte(settings))
	require.NoError(t, err)
	require.Empty(t, warnings)
	h.Dir = dir
	m := scripted.New(scripted.Text("Done."), scripted.Text("Checked."))
	c := newClient(t, m, offshoot.Options{Hooks: &h})

	res := final(t, collect(t, c, "the secret is 42"))
	require.ErrorContains(t, res.Err, "no secrets here")
	assert.Empty(t, m.Calls())

	res = final(t, collect(t, c, "Work."))
	require.NoError(t, res.Err)
	assert.Equal(t, "Checked.", res.Text)
	calls := m.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, "Work.\n\ncwd is "+filepath.Base(dir), lastUser(calls[0]))
	assert.Equal(t, "Check the tests.", lastUser(calls[1]))
	_, err = os.Stat(dir)
	require.NoError(t, err)
}

// A PreCompact hook that blocks refuses an automatic compaction: the
// conversation is sent as it is.
func TestHooksPreCompactRefusesAutomatic(t *testing.T) {
	var s seen
	h := &hooks.Hooks{List: []hooks.Hook{s.hook(hooks.PreCompact, func(hooks.Input) hooks.Output { return hooks.Output{Block: true} })}}
	main := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		n := 0 // the provider's count: about 4 bytes a token
		for _, m := range req.Messages {
			n += 4 + len(m.Content)/4
		}
		return &model.Response{Message: model.AssistantMessage("Noted."), Usage: model.Usage{InputTokens: n}}, nil
	})
	light := scripted.New()
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: main, model.Light: light}, nil)
	require.NoError(t, err)
	c, err := offshoot.NewClient(offshoot.Options{Router: r, Hooks: h, Context: runner.ContextOptions{Window: 20_000, MaxOutput: 1_000}})
	require.NoError(t, err)
	defer c.Close()
	for i := range 12 {
		require.NoError(t, final(t, collect(t, c, fmt.Sprintf("fact %d: %s", i, strings.Repeat("words ", 1500)))).Err)
	}
	require.NotEmpty(t, s.events())
	assert.Equal(t, "PreCompact:auto", s.events()[0])
	assert.Empty(t, light.Calls(), "no summary written")
	assert.Zero(t, session.Len[runner.Compacted](c.Session()))
}

// Notification hooks run when the run needs a person, as Claude Code's
// do: "permission_prompt" before a call is put to CanUseTool,
// "idle_prompt" before the model's question is put to AskUser; a
// matcher selects the kind; their answer changes nothing.
func TestHooksNotification(t *testing.T) {
	var s, prompts seen
	permissionOnly := prompts.hook(hooks.Notification, nil)
	permissionOnly.Matcher = "permission_prompt"
	h := &hooks.Hooks{List: []hooks.Hook{
		s.hook(hooks.Notification, func(hooks.Input) hooks.Output { return hooks.Output{Block: true, Reason: "ignored"} }),
		permissionOnly,
	}}
	m := scripted.New(
		scripted.ToolCalls(model.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"file_path":"notes.md","content":"hi"}`}),
		scripted.ToolCalls(askCall),
		scripted.Text("Done."),
	)
	c := newClient(t, m, offshoot.Options{Hooks: h,
		Permissions: &permission.Policy{
			Settings: permission.Settings{Ask: permission.Rules{{Tool: "Write"}}},
			CanUseTool: func(context.Context, permission.Request) (permission.Decision, error) {
				return permission.Decision{Allow: true}, nil
			},
		},
		AskUser: func(context.Context, string) (string, error) { return "SQLite", nil },
	})
	res := final(t, collect(t, c, "Write the notes, then ask."))
	require.NoError(t, res.Err)
	assert.Equal(t, "Done.", res.Text)

	require.Len(t, s.ins, 2)
	assert.Equal(t, "permission_prompt", s.ins[0].NotificationType)
	assert.Equal(t, "offshoot needs your permission to use Write", s.ins[0].Message)
	assert.Equal(t, "idle_prompt", s.ins[1].NotificationType)
	assert.Contains(t, s.ins[1].Message, "Which database?")
	for _, in := range s.ins {
		assert.Equal(t, hooks.Notification, in.Event)
		assert.Equal(t, c.Session().ID(), in.SessionID)
	}
	require.Len(t, prompts.ins, 1, "the matcher selects the kind")
	assert.Equal(t, "permission_prompt", prompts.ins[0].NotificationType)
}

// Every hook is told the run's permission mode as Claude Code tells it:
// the policy's (its Mode, else its settings' defaultMode),
// bypassPermissions with none (a client without one runs every call). The main agent keeps no transcript file, so its hooks get
// no transcript_path; a subagent's stop hooks get its transcript's.
func TestHooksInputPermissionMode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy *permission.Policy
		want   string
	}{
		{"no policy: every call runs", nil, "bypassPermissions"},
		{"its mode", &permission.Policy{Mode: permission.AcceptEdits, Settings: permission.Settings{DefaultMode: permission.Plan}}, "acceptEdits"},
		{"its settings' mode", &permission.Policy{Settings: permission.Settings{DefaultMode: permission.DontAsk}}, "dontAsk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s seen
			var list []hooks.Hook
			for _, ev := range []hooks.Event{hooks.SessionStart, hooks.UserPromptSubmit, hooks.SubagentStart, hooks.SubagentStop, hooks.Stop, hooks.SessionEnd} {
				list = append(list, s.hook(ev, nil))
			}
			m := scripted.New(
				scripted.When(scripted.SystemContains("You watch builds."), scripted.Text("The build is red.")),
				scripted.ToolCall("Task", `{"subagent_type":"watcher","description":"Watch","prompt":"Watch the build."}`),
				scripted.Text("Done."),
			)
			transcripts := t.TempDir()
			c, err := offshoot.NewClient(offshoot.Options{Model: m, Agents: testAgents, Hooks: &hooks.Hooks{List: list},
				Permissions: tc.policy, Subagents: ids(), Transcripts: transcripts})
			require.NoError(t, err)
			require.NoError(t, final(t, collect(t, c, "How is the build?")).Err)
			require.NoError(t, c.Close())

			require.Equal(t, []string{"SessionStart:startup", "UserPromptSubmit", "SubagentStart:watcher", "SubagentStop:watcher", "Stop", "SessionEnd"}, s.events())
			for _, in := range s.ins {
				assert.Equal(t, tc.want, in.PermissionMode, in.Event)
				if in.Event == hooks.SubagentStop {
					assert.True(t, strings.HasPrefix(in.TranscriptPath, transcripts), in.TranscriptPath)
				} else {
					assert.Empty(t, in.TranscriptPath, in.Event)
				}
			}
		})
	}
}
