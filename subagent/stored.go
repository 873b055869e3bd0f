package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// A child's session carries tags that say which agent it is, so that an
// engine with a store (Options.Store) finds an agent's conversation there
// when it is resumed — in this process or in a later one.
const (
	tagAgent         = "offshoot.agent"
	tagType          = "offshoot.agent.type"
	tagModel         = "offshoot.agent.model"
	tagDescription   = "offshoot.agent.description"
	tagMode          = "offshoot.agent.mode"
	tagDepth         = "offshoot.agent.depth"
	tagRoot          = "offshoot.agent.root"
	tagForkedContext = "offshoot.agent.forked_context"
)

// maxStoredConversation bounds the bytes of a stored conversation that
// resuming reads (a store may come from anywhere).
const maxStoredConversation = 64 << 20

// tags returns the child session's tags: its parent's, and the agent's.
func (c *child) tags() map[string]string {
	tags := c.spec.Parent.Tags()
	if tags == nil {
		tags = map[string]string{}
	}
	tags[tagAgent], tags[tagType], tags[tagMode] = c.id, c.spec.Name, c.mode().String()
	tags[tagDepth], tags[tagRoot] = strconv.Itoa(c.depth), c.root
	if c.spec.Request.ModelName != "" {
		tags[tagModel] = c.spec.Request.ModelName
	}
	if c.spec.Description != "" {
		tags[tagDescription] = clip(c.spec.Description)
	}
	if c.forkedContext() {
		tags[tagForkedContext] = "true"
	}
	return tags
}

// storedAgent finds the latest stored session of the agent id in the
// delegation tree rooted at root, and what its tags record of it.
// found is false when the store holds none.
func (e *Engine) storedAgent(ctx context.Context, root, id string) (h store.Header, m transcript.Meta, found bool, err error) {
	hs, err := e.store.List(ctx, store.Query{Tags: map[string]string{tagAgent: id, tagRoot: root}, Limit: 1})
	if err != nil || len(hs) == 0 {
		return store.Header{}, transcript.Meta{}, false, err
	}
	h = hs[0]
	depth, err := strconv.Atoi(h.Tags[tagDepth])
	if err != nil || depth < 1 {
		return h, m, false, fmt.Errorf("the stored session %s of agent %s records no depth", h.ID, id)
	}
	m = transcript.Meta{
		AgentID: id, Type: h.Tags[tagType], Description: h.Tags[tagDescription], Model: h.Tags[tagModel],
		Mode: h.Tags[tagMode], ForkedContext: h.Tags[tagForkedContext] == "true", Depth: depth,
		ParentSessionID: h.Parent, RootSessionID: root, Status: string(TaskStatusCompleted),
		StartedAt: h.Created, UpdatedAt: h.Updated,
	}
	return h, m, true, nil
}

// storedConversation reads the conversation of the first evaluation in
// the session's own batches: the agent's.
func (e *Engine) storedConversation(ctx context.Context, id string) ([]model.Message, error) {
	var msgs []model.Message
	eval, size := "", 0
	for b, err := range e.store.Batches(ctx, id, 0, 0) {
		if err != nil {
			return nil, err
		}
		for _, ev := range b.Events {
			if ev.Type != conversationType {
				continue
			}
			if size += len(ev.Data); size > maxStoredConversation {
				return nil, fmt.Errorf("its conversation takes more than %d bytes", maxStoredConversation)
			}
			var m runner.ConversationMessage
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				return nil, fmt.Errorf("a message at seq %d: %w", b.Seq, err)
			}
			if eval == "" {
				eval = m.Evaluation
			}
			if m.Evaluation == eval {
				msgs = append(msgs, m.Message)
			}
		}
	}
	if len(msgs) == 0 {
		return nil, errors.New("it holds no conversation")
	}
	return msgs, nil
}

// conversationType is the stored name of runner.ConversationMessage.
var conversationType = runner.Reducers().Names[reflect.TypeFor[runner.ConversationMessage]()]
