package main

import (
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// scripts returns what the two models answer. The main model plays the
// main agent and the security reviewer (model sonnet, which means main);
// the light model plays the summarizer. Routes keyed by each agent's
// system prompt give each its own turns, whatever order the two agents,
// running in parallel, ask in. Real models would decide these turns
// themselves.
func scripts() (mainModel, lightModel *scripted.Model) {
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
		),
		scripted.Text("No, not yet: login.py is open to SQL injection (line 7) and compares plaintext passwords (line 9).\n"+
			"The design notes already decide the fix: argon2id hashes and signed 12-hour tokens; "+
			"whether to keep \"remember me\" is still open."),
	)
	lightModel = scripted.New(
		scripted.When(scripted.SystemContains("You summarize."),
			scripted.ToolCall("read_file", `{"file_path":"docs/design.md"}`),
			scripted.Text("Sessions become HMAC-signed tokens valid 12 hours (keys rotate every 30 days).\n"+
				"Passwords move to argon2id, rehashed at the next login.\n"+
				"Open: keep or drop 30-day \"remember me\" tokens."),
		),
	)
	return mainModel, lightModel
}
