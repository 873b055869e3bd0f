package runner

import (
	"slices"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
)

// render renders the prompt (unless the request comes rendered),
// installs the toolset, and records the start of the conversation:
// earlier (a continued evaluation's messages) or the system message, then
// the request's messages.
func (r *run) render(earlier []model.Message) error {
	rendered := r.req.Rendered
	if rendered == nil {
		var err error
		if rendered, err = renderPrompt(r.req); err != nil {
			return err
		}
	}
	set := rendered.Tools
	if err := r.req.Session.Install(r.ctx, Sets(rendered)...); err != nil {
		return err
	}
	r.rendered, r.toolset = rendered, set
	r.specs = make([]model.ToolSpec, 0, set.Len())
	for t := range set.All() {
		spec := t.Spec()
		r.specs = append(r.specs, model.ToolSpec{Name: spec.Name, Description: spec.Description, Parameters: spec.Params})
	}
	msgs := make([]model.Message, 0, 8+len(earlier)+len(r.req.Messages))
	switch {
	case len(earlier) > 0:
		msgs = append(msgs, earlier...)
	case len(r.req.Messages) == 0 || r.req.Messages[0].Role != model.RoleSystem:
		msgs = append(msgs, model.SystemMessage(rendered.Text))
	}
	msgs = append(msgs, r.req.Messages...)
	if r.req.UserMessage != "" {
		msgs = append(msgs, model.UserMessage(r.req.UserMessage))
	}
	r.messages = msgs
	events := make([]any, 0, 1+len(msgs)-len(earlier))
	rec := PromptRendered{Evaluation: r.eval, NS: rendered.NS, Key: rendered.Key, Text: rendered.Text, Tools: set.Names()}
	if len(earlier) > 0 && sameRender(r.req.Session, rec) {
		rec.Text, rec.Tools, rec.Repeat = "", nil, true
	}
	events = append(events, rec)
	for _, m := range msgs[len(earlier):] {
		events = append(events, ConversationMessage{Evaluation: r.eval, Message: m})
	}
	if err := r.req.Session.Dispatch(r.ctx, events...); err != nil {
		return err
	}
	if b := r.req.Session.Bus(); bus.Observed[ToolsOffered](b) {
		b.Publish(r.ctx, bus.Envelope{Payload: ToolsOffered{SessionID: r.req.Session.ID(), Evaluation: r.eval, Tools: r.specs}})
	}
	return nil
}

// sameRender reports whether the evaluation's previous render in s
// rendered what rec does: the same prompt, text and tools.
func sameRender(s *session.Session, rec PromptRendered) bool {
	var text string
	var tools []string
	found := false
	for _, prev := range session.Get[PromptRendered](s).Backward() {
		if prev.Evaluation != rec.Evaluation {
			continue
		}
		if prev.NS != rec.NS || prev.Key != rec.Key {
			return false
		}
		if !prev.Repeat {
			text, tools, found = prev.Text, prev.Tools, true
			break
		}
	}
	return found && text == rec.Text && slices.Equal(tools, rec.Tools)
}
