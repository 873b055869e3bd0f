package main

import (
	"context"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// scripts returns what the two models answer. The main model plays the
// main agent and the security reviewer (model sonnet, which means main);
// the light model plays the summarizer and the built-in explore agent,
// which runs in the background. Routes keyed by each agent's system
// prompt or task give each its own turns, whatever order the agents,
// running in parallel, ask in. Real models would decide these turns
// themselves.
//
// The explore agent starts its work when release is closed: the program
// closes it once the main agent has answered, so that the trace reads the
// same on every run — the background task always ends after that answer
// and reaches the main agent at its next model call. A real agent takes
// the time it takes.
func scripts(release <-chan struct{}) (mainModel, lightModel *scripted.Model) {
	mainModel = scripted.New(
		scripted.When(scripted.SystemContains("You are a security reviewer."),
			scripted.ToolCall("grep", `{"pattern":"execute|password"}`),
			scripted.ToolCall("read_file", `{"file_path":"app/login.py"}`),
			scripted.Text("app/login.py:7 builds its SQL with an f-string: injection. Use a parameter (WHERE name = ?).\n"+
				"app/login.py:9 compares plaintext passwords. Store argon2id hashes and compare with verify()."),
		),
		scripted.ToolCalls(
			model.ToolCall{Name: "Task", Arguments: `{"subagent_type":"security-reviewer","description":"Review the login code",` +
				`"prompt":"Review app/login.py for security problems. Report each with its line and the fix."}`},
			model.ToolCall{Name: "Task", Arguments: `{"subagent_type":"summarizer","description":"Summarize the design notes",` +
				`"prompt":"Summarize docs/design.md: the decisions and the open questions."}`},
			model.ToolCall{Name: "Task", Arguments: `{"subagent_type":"explore","description":"Find other password handling",` +
				`"prompt":"Find every place in the code that reads or compares passwords, quick. Report file and line.","run_in_background":true}`},
		),
		scripted.Text("No, not yet: login.py is open to SQL injection (line 7) and compares plaintext passwords (line 9).\n"+
			"The design notes already decide the fix: argon2id hashes and signed 12-hour tokens; "+
			"whether to keep \"remember me\" is still open. An explore agent is still looking for other password handling."),
		// The next model call, once the explore agent's notification has
		// arrived.
		scripted.Text("The explore agent is done: app/login.py is the only code that handles passwords, so fixing it covers everything."),
	)
	lightModel = scripted.New(
		scripted.When(scripted.SystemContains("You summarize."),
			scripted.ToolCall("read_file", `{"file_path":"docs/design.md"}`),
			scripted.Text("Sessions become HMAC-signed tokens valid 12 hours (keys rotate every 30 days).\n"+
				"Passwords move to argon2id, rehashed at the next login.\n"+
				"Open: keep or drop 30-day \"remember me\" tokens."),
		),
		scripted.When(scripted.LastUserContains("reads or compares passwords"),
			scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "x1", Name: "grep", Arguments: `{"pattern":"password"}`})}, nil
			}),
			scripted.Text("Only app/login.py handles passwords (lines 6-9): it reads the stored one and compares it in plaintext."),
		),
	)
	// Each says its model id, as a configured model does (gpt-4.1, …).
	return mainModel.Named("scripted-main"), lightModel.Named("scripted-light")
}
