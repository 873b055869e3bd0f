package task

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// A call with resume continues an agent that ran before — to ask the
// reviewer that just reported a follow-up, with everything it read still
// in its conversation. The agent keeps its id, its type, the model it ran
// on and its depth; its conversation comes from the store the sessions are
// kept in (subagent.Options.Store) or from its transcript
// (subagent.Options.Transcripts), with any tool call left without a result
// dropped, and the call's prompt is its next message. Its system prompt
// is its type's, ending with the new call's description.
//
// Its state is its caller's as it is now: the state it worked on before
// was a copy, gone when it ended, while its caller's has moved on — with
// the files it wrote, which were copied back when it completed. An agent
// whose definition carries on its caller's conversation (forkContext)
// cannot be resumed: a new one carries on the conversation as it is now.

// resumed finds the record of the agent a call resumes and the definition
// it runs by. Its errors are the texts the model reads (*failure).
func (d *delegator) resumed(ctx context.Context, inv *tools.Invocation, in input) (*transcript.Meta, agents.Definition, error) {
	meta, err := d.engine.Agent(ctx, inv.Session, in.Resume)
	if err != nil {
		return nil, agents.Definition{}, fail("%v", err)
	}
	var def agents.Definition
	if d.reg != nil {
		def, err = d.reg.Find(meta.Type)
	}
	if d.reg == nil || err != nil || def.Name != meta.Type {
		return nil, agents.Definition{}, fail("Agent %s cannot be resumed: it is a %s agent, and this program has no %s agent now. Call Task again without resume to start another agent.",
			meta.AgentID, meta.Type, meta.Type)
	}
	if meta.ForkedContext || def.ForkContext {
		return nil, agents.Definition{}, fail("Agent %s cannot be resumed: a %s agent carries on your conversation, and only agents that start from their task alone can be resumed. "+
			"Call Task again without resume to start a new %s agent: it carries on the conversation as it is now.", meta.AgentID, meta.Type, meta.Type)
	}
	if asked, err := d.reg.Find(in.SubagentType); err != nil || asked.Name != def.Name {
		return nil, agents.Definition{}, fail("Agent %s is a %s agent, not %s: call Task again with subagent_type %s to resume it, or without resume to start a new agent.",
			meta.AgentID, def.Name, oneLine(in.SubagentType), def.Name)
	}
	if in.Model != "" && !strings.EqualFold(d.routerName(in.Model), meta.Model) {
		return nil, agents.Definition{}, invalid("model", fmt.Sprintf("a resumed agent runs on the model it ran on before (%s); leave model out", meta.Model))
	}
	return &meta, def, nil
}

// resumeModel returns the model a resumed agent ran on: the router's model
// of that name, or the caller's when the agent ran on its caller's model
// under the caller's name.
func (d *delegator) resumeModel(meta *transcript.Meta, caller *tools.Invocation) (model.Model, string, error) {
	if d.router != nil {
		m, err := d.router.Resolve(meta.Model, caller.Model)
		if err == nil {
			return m, meta.Model, nil
		}
		if !errors.Is(err, model.ErrUnknownModel) {
			return nil, "", err
		}
	}
	if caller.Model != nil && strings.EqualFold(meta.Model, caller.ModelName) {
		return caller.Model, caller.ModelName, nil
	}
	return nil, "", fmt.Errorf("the model agent %s ran on (%s) is not one this program has now", meta.AgentID, meta.Model)
}

// routerName returns the router's name for the model name resolves to
// ("light" for "haiku"), or name when the router does not know it.
func (d *delegator) routerName(name string) string {
	if d.router != nil {
		if n, ok := d.router.ModelName(name); ok {
			return n
		}
	}
	return name
}

// oneLine returns s on one line, cut to maxLabel characters, to be shown
// back to the model.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxLabel {
		s = string(r[:maxLabel]) + "…"
	}
	return s
}
