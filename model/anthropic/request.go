package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/model"
)

// The request body. Its fields are written in a fixed order, the
// conversation last, and each block's cache_control last in the block, so
// that a conversation's consecutive requests render byte for byte alike up
// to where they differ: what the provider's cache keys on.

type body struct {
	Model         string        `json:"model"`
	MaxTokens     int           `json:"max_tokens"`
	Stream        bool          `json:"stream,omitempty"`
	Thinking      *thinking     `json:"thinking,omitempty"`
	Temperature   *float64      `json:"temperature,omitempty"`
	TopP          *float64      `json:"top_p,omitempty"`
	StopSequences []string      `json:"stop_sequences,omitempty"`
	ToolChoice    *toolChoice   `json:"tool_choice,omitempty"`
	OutputConfig  *outputConfig `json:"output_config,omitempty"`
	Tools         []tool        `json:"tools,omitempty"`
	System        []block       `json:"system,omitempty"`
	Messages      []wireMessage `json:"messages"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type outputConfig struct {
	Format outputFormat `json:"format"`
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// block is a content block as sent: text, tool_use or tool_result. A
// reasoning block goes in a message's content as the json.RawMessage it
// came as.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// wireMessage is a message as sent: its content holds *block values and,
// in an assistant message, the json.RawMessage of reasoning blocks.
type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// emptyParameters is the input_schema of a tool without parameters.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// emptyText stands in for a message without text: the API refuses an
// empty text block.
const emptyText = "(empty)"

var ephemeral = &cacheControl{Type: "ephemeral"}

// render builds the JSON body for req.
func (m *Model) render(req *model.Request, stream bool) ([]byte, error) {
	// Temperature and TopP are not sent: the Messages API the SDK
	// describes (v2) has no sampling parameters.
	b := body{Model: req.Model, MaxTokens: req.MaxTokens, Stream: stream, StopSequences: req.Stop}
	if b.Model == "" {
		b.Model = m.cfg.Model
	}
	if b.Model == "" {
		return nil, errors.New("anthropic: no model id: set Config.Model (LLM_MODEL_ID) or Request.Model")
	}
	if b.MaxTokens <= 0 {
		b.MaxTokens = m.cfg.MaxTokens
	}
	if m.cfg.ThinkingBudget > 0 {
		b.Thinking = &thinking{Type: "enabled", BudgetTokens: m.cfg.ThinkingBudget}
		if b.MaxTokens <= m.cfg.ThinkingBudget {
			b.MaxTokens = m.cfg.ThinkingBudget + m.cfg.MaxTokens
		}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("anthropic: tool %q: parameters are not valid JSON", t.Name)
		}
		b.Tools = append(b.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: params})
	}
	switch req.ToolChoice {
	case "":
	case "auto", "none":
		b.ToolChoice = &toolChoice{Type: req.ToolChoice}
	case "required":
		b.ToolChoice = &toolChoice{Type: "any"}
	default:
		b.ToolChoice = &toolChoice{Type: "tool", Name: req.ToolChoice}
	}
	if o := req.Output; o != nil {
		if !json.Valid(o.Schema) {
			return nil, fmt.Errorf("anthropic: output %q: the schema is not valid JSON", o.Name)
		}
		b.OutputConfig = &outputConfig{Format: outputFormat{Type: "json_schema", Schema: o.Schema}}
	}
	ends, err := b.conversation(req.Messages)
	if err != nil {
		return nil, err
	}
	if !m.cfg.NoCache {
		b.breakpoints(req.Messages, ends, m.cfg.LongCache)
	}
	out, err := json.Marshal(&b)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode the request: %w", err)
	}
	return out, nil
}

// at locates a content block: a message and a block of it.
type at struct{ msg, block int }

// conversation renders msgs into b's system blocks and messages, and
// returns where each message's last block went (msg -1 for a system
// block; block -1 for a message that rendered none).
func (b *body) conversation(msgs []model.Message) ([]at, error) {
	ends := make([]at, len(msgs))
	leading := true
	for i, msg := range msgs {
		if msg.Role == model.RoleSystem && leading {
			text := msg.Content
			if text == "" {
				text = emptyText
			}
			b.System = append(b.System, block{Type: "text", Text: text})
			ends[i] = at{-1, len(b.System) - 1}
			continue
		}
		leading = false
		role := "user"
		var blocks []any
		switch msg.Role {
		case model.RoleSystem, model.RoleUser:
			blocks = append(blocks, textBlock(msg.Content))
		case model.RoleAssistant:
			role = "assistant"
			for _, r := range msg.Reasoning {
				if !json.Valid(r) {
					return nil, fmt.Errorf("anthropic: message %d: its reasoning is not valid JSON; it must be sent back as the API gave it", i)
				}
				blocks = append(blocks, r)
			}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				blocks = append(blocks, textBlock(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, &block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: arguments(c.Arguments)})
			}
		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("anthropic: message %d: a tool message without tool_call_id", i)
			}
			blocks = append(blocks, &block{Type: "tool_result", ToolUseID: msg.ToolCallID, Content: msg.Content, IsError: msg.Failed})
		default:
			return nil, fmt.Errorf("anthropic: message %d: unknown role %q (want system, user, assistant or tool)", i, msg.Role)
		}
		// Consecutive messages of one side make one turn, as the API
		// wants: tool results and the user's text that follows them.
		if n := len(b.Messages); n > 0 && b.Messages[n-1].Role == role {
			b.Messages[n-1].Content = append(b.Messages[n-1].Content, blocks...)
		} else {
			b.Messages = append(b.Messages, wireMessage{Role: role, Content: blocks})
		}
		last := len(b.Messages) - 1
		ends[i] = at{last, len(b.Messages[last].Content) - 1}
	}
	return ends, nil
}

func textBlock(s string) *block {
	if s == "" {
		s = emptyText
	}
	return &block{Type: "text", Text: s}
}

// arguments is a tool call's input: its arguments when they are a JSON
// object, else an empty object (a malformed call, answered as failed,
// still has to be sent back).
func arguments(args string) json.RawMessage {
	raw := json.RawMessage(args)
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			if json.Valid(raw) {
				return raw
			}
		}
		break
	}
	return json.RawMessage(`{}`)
}

// maxBreakpoints is the most cache_control marks the API takes.
const maxBreakpoints = 4

// breakpoints marks, by rule, at most four prefixes for the provider to
// cache:
//  1. the tools and system prompt (the last system block, else the last
//     tool), which change least;
//  2. the newest message, so that the next request of a loop, which
//     repeats this one and adds to it, reads it;
//  3. the newest user or tool message before that: where the previous
//     request ended — in a loop, the previous turn's newest message; in a
//     fork-context child's first request, the end of its caller's
//     conversation, so that it reads what the caller wrote and every
//     sibling reads the same;
//  4. the newest message the program marked (model.Message.Cache).
func (b *body) breakpoints(msgs []model.Message, ends []at, long bool) {
	first := ephemeral
	if long {
		first = &cacheControl{Type: "ephemeral", TTL: "1h"}
	}
	switch {
	case len(b.System) > 0:
		b.System[len(b.System)-1].CacheControl = first
	case len(b.Tools) > 0:
		b.Tools[len(b.Tools)-1].CacheControl = first
	}
	marks := 1
	mark := func(i int) {
		e := ends[i]
		if e.msg < 0 || e.block < 0 || marks >= maxBreakpoints {
			return
		}
		blk, ok := b.Messages[e.msg].Content[e.block].(*block)
		if !ok || blk.CacheControl != nil {
			return
		}
		blk.CacheControl = ephemeral
		marks++
	}
	newest := len(msgs) - 1
	if newest < 0 || ends[newest].msg < 0 {
		return
	}
	mark(newest)
	for i := newest - 1; i >= 0 && ends[i].msg >= 0; i-- {
		if r := msgs[i].Role; r == model.RoleUser || r == model.RoleTool {
			mark(i)
			break
		}
	}
	for i := newest; i >= 0 && ends[i].msg >= 0; i-- {
		if msgs[i].Cache {
			mark(i)
			break
		}
	}
}
