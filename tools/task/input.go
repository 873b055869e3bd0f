package task

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/serde"
)

// Limits of the input, as the tool checks it.
const (
	// maxDescription bounds the description, in characters. The model is
	// asked for a summary of 3 to 5 words, which is guidance, not a limit:
	// any one line up to this length is accepted, so that a wordier
	// summary does not cost it a turn.
	maxDescription = 200
	// maxPrompt bounds the prompt, in characters.
	maxPrompt = 100_000
	// maxMaxTurns bounds max_turns, as agent definitions bound maxTurns.
	maxMaxTurns = 10_000
	// maxLabel bounds the short fields: subagent_type, model, name,
	// resume, team_name and mode.
	maxLabel = 200
)

// input is the Task tool's input, the schema of Claude Code's Task tool
// (description, prompt, subagent_type) with the options of the Claude
// Agent SDK. Unknown fields are rejected.
type input struct {
	// Description is a short (3-5 word) summary of the task; the child's
	// system prompt ends with it under "# Task".
	Description string `json:"description" jsonschema:"A short (3-5 word) description of the task" validate:"required"`
	// Prompt is the task itself: the child's first user message.
	Prompt string `json:"prompt" jsonschema:"The task for the agent to perform" validate:"required"`
	// SubagentType names the agent: exactly, or ignoring case and
	// separators ("Code Reviewer" finds code-reviewer).
	SubagentType string `json:"subagent_type" jsonschema:"The type of specialized agent to use for this task" validate:"required"`
	// Model overrides the agent's model: main, light, inherit or a
	// configured name.
	Model string `json:"model,omitempty" jsonschema:"The model the agent runs on: light for simple tasks, main for complex ones, inherit for the one you run on; leave it out to use the agent's own choice"`
	// MaxTurns overrides the agent's limit of model calls.
	MaxTurns int `json:"max_turns,omitempty" jsonschema:"The most model calls the agent may make; leave it out to use the agent's own limit"`
	// Name labels the agent in results and records.
	Name string `json:"name,omitempty" jsonschema:"A name for this agent, to tell it apart from others in results"`
	// RunInBackground starts the agent in the background: the call
	// returns at once, and the agent's result reaches the caller in a
	// task notification.
	RunInBackground bool `json:"run_in_background,omitempty" jsonschema:"Start the agent in the background and return at once; its result comes to you later in a task notification"`
	// Resume names an earlier agent, by its agent id, to continue with
	// Prompt as its next message.
	Resume string `json:"resume,omitempty" jsonschema:"The agent_id of an earlier agent to continue: it keeps its conversation, and prompt is its next message"`
	// TeamName and Mode are accepted, and recorded in the result's
	// params_input, for parity with the Claude Agent SDK; they change
	// nothing here.
	TeamName string `json:"team_name,omitempty" jsonschema:"The team the agent belongs to, if any"`
	Mode     string `json:"mode,omitempty" jsonschema:"The permission mode the agent runs in, if any"`
}

// Validate checks what the validate tags cannot say: a description and a
// prompt that are not blank, a description of one line and at most 200
// characters (the model is asked for 3 to 5 words, but more are
// accepted), a prompt of at most 100,000 characters, max_turns up to 10,000,
// and one-line labels of at most 200 characters. Its error names the
// field, as the model is shown it.
func (in *input) Validate() error {
	bad := func(field, reason string) error { return &serde.ValidationError{Path: field, Reason: reason} }
	desc := strings.TrimSpace(in.Description)
	switch {
	case desc == "":
		return bad("description", "is required: give a short (3-5 word) description of the task")
	case strings.ContainsAny(desc, "\r\n"):
		return bad("description", "must be one line (a short summary, 3 to 5 words); put the details in prompt")
	case !utf8.ValidString(desc):
		return bad("description", "must be UTF-8 text")
	case utf8.RuneCountInString(desc) > maxDescription:
		return bad("description", fmt.Sprintf("is %d characters long; give at most %d (a short summary, 3 to 5 words) and put the details in prompt",
			utf8.RuneCountInString(desc), maxDescription))
	}
	switch p := strings.TrimSpace(in.Prompt); {
	case p == "":
		return bad("prompt", "is required: give the agent its whole task, since it sees nothing else")
	case len(in.Prompt) > maxPrompt && utf8.RuneCountInString(in.Prompt) > maxPrompt:
		return bad("prompt", fmt.Sprintf("is %d characters long; give at most %d", utf8.RuneCountInString(in.Prompt), maxPrompt))
	case !utf8.ValidString(in.Prompt):
		return bad("prompt", "must be UTF-8 text")
	}
	if strings.TrimSpace(in.SubagentType) == "" {
		return bad("subagent_type", "is required: name one of the available agents")
	}
	if in.MaxTurns < 0 || in.MaxTurns > maxMaxTurns {
		return bad("max_turns", fmt.Sprintf("must be from 1 to %d, or left out", maxMaxTurns))
	}
	for _, f := range []struct{ name, value string }{
		{"subagent_type", in.SubagentType}, {"model", in.Model}, {"name", in.Name},
		{"resume", in.Resume}, {"team_name", in.TeamName}, {"mode", in.Mode},
	} {
		switch {
		case utf8.RuneCountInString(f.value) > maxLabel:
			return bad(f.name, fmt.Sprintf("must be at most %d characters", maxLabel))
		case strings.ContainsAny(f.value, "\r\n"):
			return bad(f.name, "must be one line")
		case !utf8.ValidString(f.value):
			return bad(f.name, "must be UTF-8 text")
		}
	}
	return nil
}
