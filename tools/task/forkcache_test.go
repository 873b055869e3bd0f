package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// The delegating workflow of the prompt-cache measure: a parent with a
// 20-turn, 50 KB conversation delegates 5 subtasks at once to a
// fork-context agent, and each child answers in 2 turns.
const (
	forkTurns    = 20
	forkBytes    = 50_000
	forkChildren = 5
)

// forkAgents are the agents of the workflow: a fork-context one that may
// use every tool of its caller, one that may only read, and an isolated
// one to compare with.
var forkAgents = map[string]agents.Definition{
	"forker":  {Description: "Carries on from the conversation so far.", Prompt: "You continue the work in progress.", ForkContext: true},
	"peeker":  {Description: "Carries on, reading only.", Prompt: "You look, and never change anything.", ForkContext: true, Tools: []string{"ls", "read_file"}},
	"checker": {Description: "Checks one thing from its task alone.", Prompt: "You check what you are asked to."},
}

// history is the parent's conversation so far: forkTurns user and
// assistant turns, forkBytes in all.
func history() []model.Message {
	per := forkBytes / (2 * forkTurns)
	var out []model.Message
	for i := range forkTurns {
		out = append(out,
			model.UserMessage(fmt.Sprintf("Step %d: %s", i+1, strings.Repeat("the ledger rounds a total; ", per/27))),
			model.AssistantMessage(fmt.Sprintf("Done with step %d: %s", i+1, strings.Repeat("noted the rounding rule. ", per/25))))
	}
	return out
}

// wire is a request as a provider reads it for its prompt cache: the tools,
// then the messages.
func wire(t testing.TB, req *model.Request) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		Tools    []model.ToolSpec `json:"tools"`
		Messages []model.Message  `json:"messages"`
	}{req.Tools, req.Messages})
	require.NoError(t, err)
	return b
}

// sharedPrefix is how many leading bytes a and b have in common.
func sharedPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// delegateAll is the parent's script: one turn that hands n subtasks to
// agent, then its answer.
func delegateAll(agent string, n int) *scripted.Model {
	var calls []model.ToolCall
	for i := range n {
		calls = append(calls, model.ToolCall{ID: fmt.Sprintf("task-%d", i+1), Name: "Task", Arguments: fmt.Sprintf(
			`{"subagent_type":%q,"description":"Check ledger part %d","prompt":"Check part %d of the ledger for rounding errors.","model":"main"}`, agent, i+1, i+1)})
	}
	return scripted.New(scripted.Reply(&model.Response{Message: model.AssistantMessage("I will split the check.", calls...)}), scripted.Text("All parts checked."))
}

// childTurns answers each child twice: a tool call (first), then its
// findings.
func childTurns(tool, args string) scripted.Turn {
	return scripted.Repeat(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleUser {
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "look", Name: tool, Arguments: args})}, nil
		}
		return &model.Response{Message: model.AssistantMessage("No rounding errors in this part.")}, nil
	}))
}

// A fork-context child's first request is its caller's delegating request,
// byte for byte, then its delegation: at least 95% of its bytes are a
// prefix it shares with the caller's request and with its siblings', so
// that a provider bills them from its prompt cache.
func TestForkContextChildrenShareTheCallersPrefix(t *testing.T) {
	w := newWorld(t, worldConfig{agents: forkAgents, main: []scripted.Turn{childTurns("ls", `{"path":""}`)}})
	parent := delegateAll("forker", forkChildren)
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: parent, ModelName: "caller", Messages: history(), UserMessage: "Check the ledger."})
	require.NoError(t, err)
	require.Equal(t, "All parts checked.", resp.Text)

	delegating := wire(t, parent.Calls()[0].Request)
	firsts := childFirstRequests(t, w.main)
	require.Len(t, firsts, forkChildren)
	for i, first := range firsts {
		shared := sharedPrefix(first, delegating)
		assert.GreaterOrEqual(t, float64(shared)/float64(len(first)), 0.95, "child %d shares %d of its %d bytes with the caller", i, shared, len(first))
		assert.GreaterOrEqual(t, shared, len(delegating)-len(`]}`), "child %d carries the caller's whole request on", i)
		for j, sibling := range firsts[:i] {
			assert.GreaterOrEqual(t, sharedPrefix(first, sibling), len(delegating)-len(`]}`), "children %d and %d share the caller's prefix", j, i)
		}
	}
	t.Logf("caller's request %d bytes; each child's first request %d bytes, %.1f%% of it shared", len(delegating), len(firsts[0]),
		100*float64(sharedPrefix(firsts[0], delegating))/float64(len(firsts[0])))
}

// childFirstRequests returns the first request of each child m answered, as
// a provider reads it.
func childFirstRequests(t testing.TB, m *scripted.Model) [][]byte {
	t.Helper()
	var out [][]byte
	for _, req := range childRequests(m) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleUser {
			out = append(out, wire(t, req))
		}
	}
	return out
}

// A tool outside a fork-context agent's list stays listed — the caller's
// toolset is the opening the cache serves — but a call to it is refused
// with a result saying so, and the tool never runs.
func TestAForkContextAgentsToolListHoldsAtCallTime(t *testing.T) {
	w := newWorld(t, worldConfig{agents: forkAgents, main: []scripted.Turn{childTurns("write_file", `{"file_path":"ledger.md","content":"rounded"}`)}})
	parent := delegateAll("peeker", 1)
	_, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: parent, ModelName: "caller", UserMessage: "Check the ledger."})
	require.NoError(t, err)

	reqs := childRequests(w.main)
	require.Len(t, reqs, 2)
	assert.Equal(t, parent.Calls()[0].Request.Tools, reqs[0].Tools, "write_file is still offered")
	assert.Contains(t, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "Of the tools listed, you may use only these: ls, read_file. A call to any other is refused.")
	result := reqs[1].Messages[len(reqs[1].Messages)-1]
	assert.Equal(t, model.RoleTool, result.Role)
	assert.Equal(t, "Permission to use the tool 'write_file' was denied: the peeker agent may not use it; it may use only ls, read_file", result.Content)
	_, wrote := session.Latest[vfs.FileWritten](w.s)
	assert.False(t, wrote, "nothing was written")
}

// BenchmarkForkContextBytes measures what the delegating workflow sends
// the model, with a fork-context agent and with an isolated one: the bytes
// of every request, and how much of each child's first request is a
// prefix it shares with its caller's (the part a provider's prompt cache
// serves).
func BenchmarkForkContextBytes(b *testing.B) {
	for _, agent := range []string{"forker", "checker"} {
		b.Run(agent, func(b *testing.B) {
			var sent, shared, first int
			for b.Loop() {
				w := newWorld(b, worldConfig{agents: forkAgents, main: []scripted.Turn{childTurns("ls", `{"path":""}`)}})
				parent := delegateAll(agent, forkChildren)
				if _, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: parent, ModelName: "caller", Messages: history(), UserMessage: "Check the ledger."}); err != nil {
					b.Fatal(err)
				}
				sent, shared, first = 0, 0, 0
				for _, m := range []*scripted.Model{parent, w.main} {
					for _, c := range m.Calls() {
						sent += len(wire(b, c.Request))
					}
				}
				delegating := wire(b, parent.Calls()[0].Request)
				for _, f := range childFirstRequests(b, w.main) {
					shared += sharedPrefix(f, delegating)
					first += len(f)
				}
			}
			b.ReportMetric(float64(sent), "bytes-sent")
			b.ReportMetric(100*float64(shared)/float64(first), "%-prefix-shared")
		})
	}
}

// A fork-context child of a caller whose conversation was compacted
// starts with the caller's request as it was sent — compacted — byte for
// byte.
func TestForkContextChildOfACompactedCaller(t *testing.T) {
	w := newWorld(t, worldConfig{agents: forkAgents, main: []scripted.Turn{childTurns("ls", `{"path":""}`)}})
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: scripted.New(scripted.Text("Noted.")), Messages: history(), UserMessage: "Read the ledger."})
	require.NoError(t, err)
	summarizer := scripted.New(scripted.Text("Summary: twenty steps on the ledger's rounding rule."))
	_, err = runner.Compact(ctx, runner.Request{Session: w.s, Continue: resp.Evaluation, Model: summarizer}, "")
	require.NoError(t, err)

	parent := delegateAll("forker", 1)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: parent, ModelName: "caller", Continue: resp.Evaluation, UserMessage: "Check the ledger."})
	require.NoError(t, err)
	delegating := wire(t, parent.Calls()[0].Request)
	assert.Contains(t, string(delegating), "Summary: twenty steps")
	assert.Less(t, len(delegating), forkBytes/2, "the caller sent the compacted conversation")
	firsts := childFirstRequests(t, w.main)
	require.Len(t, firsts, 1)
	assert.GreaterOrEqual(t, sharedPrefix(firsts[0], delegating), len(delegating)-len(`]}`), "the child carries the caller's compacted request on")
}
