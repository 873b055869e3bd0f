package offshoot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/tools"
)

// askUserToolName is Claude Code's name for the tool, kept so that agent
// files that list it get it.
const askUserToolName = "AskUserQuestion"

// askUserParams are AskUserQuestion's arguments, in Claude Code's shape:
// questions, each with a short header, options and multiSelect.
type askUserParams struct {
	Questions []askUserQuestion `json:"questions" jsonschema:"The questions to ask, 1 to 4." validate:"required,min=1,max=4,dive"`
}

type askUserQuestion struct {
	Question    string          `json:"question" jsonschema:"The complete question, ending with a question mark." validate:"required,max=2000"`
	Header      string          `json:"header,omitempty" jsonschema:"A very short label for the question (12 characters at most), such as Auth method." validate:"max=40"`
	Options     []askUserOption `json:"options,omitempty" jsonschema:"The choices, 2 to 4; the user may also answer in their own words." validate:"max=4,dive"`
	MultiSelect bool            `json:"multiSelect,omitempty" jsonschema:"Whether the user may choose more than one option."`
}

type askUserOption struct {
	Label       string `json:"label" jsonschema:"The choice, in 1 to 5 words." validate:"required,max=200"`
	Description string `json:"description,omitempty" jsonschema:"What the choice means, or what follows from it." validate:"max=1000"`
}

// askUserDescription is what the model reads of the tool.
const askUserDescription = `Ask the user questions when you need their decision or information to go on: a choice between approaches, a preference, a missing detail. Ask 1 to 4 questions at once, each with a short header and 2 to 4 options (the user may also answer in their own words). The user's answers come back as this call's result; they may come later, and the work goes on from here then.`

// askUserTool returns the AskUserQuestion tool, asking ask: an answer
// comes back as the call's result, word for word; ask's error fails the
// call, and runner.Wait(question) parks the run until the answer comes
// (Client.Answer) — in the client's own session only: an agent's call
// that would wait reads that no one can answer now.
func askUserTool(c *Client, ask func(ctx context.Context, question string) (string, error)) (tools.Tool, error) {
	return tools.New(askUserToolName, askUserDescription, func(ctx context.Context, inv *tools.Invocation, p askUserParams) (tools.Result[struct{}], error) {
		question := p.text()
		c.notify(ctx, "idle_prompt", "offshoot is waiting for your answer: "+clipRunes(oneLine(question), maxNotification))
		answer, err := ask(ctx, question)
		if err != nil {
			if _, ok := errors.AsType[*runner.Waiting](err); ok {
				if inv.Session == nil || inv.Session != c.session {
					return tools.Failed[struct{}](noOneToAsk), nil
				}
				return tools.Result[struct{}]{}, err
			}
			return tools.Result[struct{}]{}, fmt.Errorf("the user could not be asked: %w", err)
		}
		if strings.TrimSpace(answer) == "" {
			answer = "The user gave no answer."
		}
		return tools.OK(answer, struct{}{}), nil
	})
}

// noOneToAsk is what an agent's model reads when its question would
// wait: only the main agent's run waits for a person.
const noOneToAsk = "No one can answer your questions now. Decide as well as you can, and say in your final answer what you decided and what you would have asked."

// text words the questions for a person to read and answer: each with
// its header, its numbered options, and whether several may be chosen.
func (p askUserParams) text() string {
	var b strings.Builder
	for i, q := range p.Questions {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if h := oneLine(q.Header); h != "" {
			fmt.Fprintf(&b, "[%s] ", h)
		}
		b.WriteString(strings.TrimSpace(q.Question))
		for j, o := range q.Options {
			fmt.Fprintf(&b, "\n  %d. %s", j+1, oneLine(o.Label))
			if d := oneLine(o.Description); d != "" {
				b.WriteString(" — " + d)
			}
		}
		if q.MultiSelect && len(q.Options) > 1 {
			b.WriteString("\n  (several may be chosen)")
		}
	}
	return b.String()
}

// oneLine is s on one line, its runs of space made one.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
