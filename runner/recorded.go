package runner

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
)

// Recorded reads back, from what a session recorded, the response of the
// evaluation eval of the prompt as rendered: its conversation, its last
// text, what its model calls spent, the tools of the prompt it called and, when it
// ended and the prompt declares one, its structured output. It is the
// response of an evaluation run elsewhere (a subagent on a worker), whose
// records were applied to this session. Usage, Turns and ToolCalls count
// every call of the evaluation, continuations included; ChildUsage and
// Duration, which are not recorded until it ends, are those of its
// latest end. An output that does not decode into the prompt's output
// type is an error.
func Recorded(snap session.Snapshot, eval string, rendered *prompt.Rendered) (*Response, error) {
	if rendered == nil {
		rendered = &prompt.Rendered{}
	}
	resp := &Response{NS: rendered.NS, Key: rendered.Key, Evaluation: eval, Rendered: rendered, Messages: Conversation(snap, eval)}
	for _, m := range resp.Messages {
		if m.Role == model.RoleAssistant && (m.Content != "" || len(m.ToolCalls) == 0) {
			resp.Text = m.Content
		}
	}
	for mc := range session.SliceOfSnapshot[ModelCalled](snap).All() {
		if mc.Evaluation == eval {
			resp.Usage = resp.Usage.Add(mc.Usage)
			resp.Turns++
		}
	}
	used := map[string]bool{}
	for ti := range session.SliceOfSnapshot[ToolInvoked](snap).All() {
		if ti.Evaluation == eval {
			resp.ToolCalls++
			if _, known := rendered.Tools.Lookup(ti.Name); known && !used[ti.Name] {
				used[ti.Name] = true
				resp.ToolsUsed = append(resp.ToolsUsed, ti.Name)
			}
		}
	}
	var end *PromptExecuted
	for _, pe := range session.SliceOfSnapshot[PromptExecuted](snap).Backward() {
		if pe.Evaluation == eval {
			end = &pe
			break
		}
	}
	if end == nil {
		return resp, nil
	}
	resp.ChildUsage, resp.Duration = end.ChildUsage, end.Duration
	if rendered.Output == nil || len(end.Output) == 0 {
		return resp, nil
	}
	v := reflect.New(rendered.Output.Type())
	if err := json.Unmarshal(end.Output, v.Interface()); err != nil {
		return resp, fmt.Errorf("runner: the recorded output of evaluation %s does not decode as the prompt's output: %w", eval, err)
	}
	resp.Output = v.Elem().Interface()
	return resp, nil
}
