package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	gopenai "github.com/sashabaranov/go-openai"

	"github.com/offshoot-dev/offshoot/model"
)

// emptyParameters is sent for a tool without a parameters schema.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// outputMapping carries what is needed to map a structured answer back to
// the caller's schema.
type outputMapping struct {
	schema  any  // the original schema, parsed, when strict: nulls to strip
	wrapped bool // the array schema was sent inside {"items": …}
}

// chatBody is the JSON body of a request: go-openai's request type, with
// the sampling parameters sent as given (its float32 fields are omitted
// when zero, so an explicit 0 would not be sent) and the messages as
// wireMessage sends them.
type chatBody struct {
	gopenai.ChatCompletionRequest
	Messages    []wireMessage `json:"messages"`
	Temperature *float64      `json:"temperature,omitempty"`
	TopP        *float64      `json:"top_p,omitempty"`
	// PromptCacheKey is OpenAI's field for Request.CacheKey, which
	// go-openai's request does not have.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

// wireMessage is a message as sent. Unlike go-openai's message type, which
// leaves out an empty content, it always carries "content": OpenAI refuses
// a tool or user message without it, and a tool's result may be empty. An
// assistant message that only makes tool calls sends null, as OpenAI's own
// answers do.
type wireMessage struct {
	Role       string             `json:"role"`
	Content    *string            `json:"content"`
	Name       string             `json:"name,omitempty"`
	ToolCalls  []gopenai.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
}

// chatRequest builds the JSON body for req.
func (m *Model) chatRequest(req *model.Request, stream bool) ([]byte, *outputMapping, error) {
	creq := gopenai.ChatCompletionRequest{Model: req.Model, Stop: req.Stop, Seed: req.Seed, Stream: stream}
	if creq.Model == "" {
		creq.Model = m.cfg.Model
	}
	if creq.Model == "" {
		return nil, nil, errors.New("openai: no model id: set Config.Model (LLM_MODEL_ID) or Request.Model")
	}
	if stream {
		creq.StreamOptions = &gopenai.StreamOptions{IncludeUsage: true}
	}
	messages := make([]wireMessage, 0, len(req.Messages))
	for i, msg := range req.Messages {
		wm, err := chatMessage(msg)
		if err != nil {
			return nil, nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		messages = append(messages, wm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		} else if !json.Valid(params) {
			return nil, nil, fmt.Errorf("openai: tool %q: parameters are not valid JSON", t.Name)
		}
		creq.Tools = append(creq.Tools, gopenai.Tool{
			Type:     gopenai.ToolTypeFunction,
			Function: &gopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	switch req.ToolChoice {
	case "":
	case "auto", "none", "required":
		creq.ToolChoice = req.ToolChoice
	default:
		creq.ToolChoice = gopenai.ToolChoice{Type: gopenai.ToolTypeFunction, Function: gopenai.ToolFunction{Name: req.ToolChoice}}
	}
	if m.cfg.LegacyMaxTokens {
		creq.MaxTokens = req.MaxTokens
	} else {
		creq.MaxCompletionTokens = req.MaxTokens
	}
	var out *outputMapping
	if o := req.Output; o != nil {
		format, mapping, err := responseFormat(o)
		if err != nil {
			return nil, nil, fmt.Errorf("openai: %w", err)
		}
		creq.ResponseFormat, out = format, mapping
	}
	cb := chatBody{ChatCompletionRequest: creq, Messages: messages, Temperature: req.Temperature, TopP: req.TopP}
	if m.sendCacheKey {
		cb.PromptCacheKey = req.CacheKey
	}
	body, err := json.Marshal(cb)
	if err != nil {
		return nil, nil, fmt.Errorf("openai: encode the request: %w", err)
	}
	return body, out, nil
}

func chatMessage(msg model.Message) (wireMessage, error) {
	cm := wireMessage{Content: &msg.Content}
	switch msg.Role {
	case model.RoleSystem:
		cm.Role = gopenai.ChatMessageRoleSystem
		cm.Name = msg.Name
	case model.RoleUser:
		cm.Role = gopenai.ChatMessageRoleUser
		cm.Name = msg.Name
	case model.RoleAssistant:
		cm.Role = gopenai.ChatMessageRoleAssistant
		cm.Name = msg.Name
		for _, tc := range msg.ToolCalls {
			args := tc.Arguments
			if args == "" {
				args = "{}"
			}
			cm.ToolCalls = append(cm.ToolCalls, gopenai.ToolCall{
				ID:       tc.ID,
				Type:     gopenai.ToolTypeFunction,
				Function: gopenai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
		if msg.Content == "" && len(cm.ToolCalls) > 0 {
			cm.Content = nil
		}
	case model.RoleTool:
		if msg.ToolCallID == "" {
			return cm, errors.New("tool message without tool_call_id")
		}
		cm.Role = gopenai.ChatMessageRoleTool
		cm.ToolCallID = msg.ToolCallID
	default:
		return cm, fmt.Errorf("unknown role %q (want system, user, assistant or tool)", msg.Role)
	}
	return cm, nil
}

var nameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// schemaName makes a name acceptable to OpenAI: ^[a-zA-Z0-9_-]{1,64}$.
func schemaName(name string) string {
	name = nameUnsafe.ReplaceAllString(name, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "output"
	}
	return name
}

// convertResponse maps the first choice of resp.
func convertResponse(req *model.Request, resp gopenai.ChatCompletionResponse, out *outputMapping) (*model.Response, error) {
	if len(resp.Choices) == 0 {
		return nil, &model.APIError{Message: "the server returned a chat completion without choices"}
	}
	choice := resp.Choices[0]
	msg := model.Message{Role: model.RoleAssistant, Content: choice.Message.Content}
	for _, tc := range choice.Message.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	usage := model.Usage{
		InputTokens:  resp.Usage.PromptTokens,
		OutputTokens: resp.Usage.CompletionTokens,
		TotalTokens:  resp.Usage.TotalTokens,
		// No server bills nothing for an answer: zeros mean none was sent.
		Unreported: resp.Usage.PromptTokens == 0 && resp.Usage.CompletionTokens == 0 && resp.Usage.TotalTokens == 0,
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		usage.CachedInputTokens = d.CachedTokens
	}
	r := finish(req, msg, choice.Message.Refusal, finishReason(choice.FinishReason), usage, resp.Model, out)
	r.ID = resp.ID
	return r, nil
}

// finish completes an answer: a refusal becomes the text, missing tool call
// ids are filled in, a structured answer is mapped back to the caller's
// schema, and a missing total is computed.
func finish(req *model.Request, msg model.Message, refusal string, reason model.FinishReason, usage model.Usage, modelID string, out *outputMapping) *model.Response {
	model.FillToolCallIDs(req, msg.ToolCalls)
	switch {
	case msg.Content == "" && refusal != "":
		msg.Content = refusal
		reason = model.FinishRefusal
	case out != nil && msg.Content != "" && len(msg.ToolCalls) == 0:
		msg.Content = out.mapBack(msg.Content)
	}
	if len(msg.ToolCalls) > 0 && (reason == model.FinishStop || reason == "") {
		reason = model.FinishToolCalls // some servers say stop
	}
	if usage.TotalTokens == 0 {
		usage.TotalTokens = usage.InputTokens + usage.OutputTokens
	}
	return &model.Response{Message: msg, FinishReason: reason, Usage: usage, Model: modelID}
}

// mapBack maps a structured answer to the caller's schema: the array
// inside {"items": …} is taken out, and the nulls strict mode forced into
// optional fields are removed. An answer that is not JSON, or not shaped
// as requested, is returned unchanged for the caller to report.
func (out *outputMapping) mapBack(content string) string {
	if out.schema == nil && !out.wrapped {
		return content
	}
	v, err := parseOrdered([]byte(content))
	if err != nil {
		return content
	}
	if out.wrapped {
		if o, ok := v.(*object); ok {
			if items, ok := o.get("items").([]any); ok && len(o.keys) == 1 {
				v = items
			}
		}
	}
	if out.schema != nil {
		root, _ := out.schema.(*object)
		v = stripNulls(out.schema, root, v)
	}
	b, err := marshalOrdered(v)
	if err != nil {
		return content
	}
	return string(b)
}

func finishReason(r gopenai.FinishReason) model.FinishReason {
	switch r {
	case gopenai.FinishReasonToolCalls, gopenai.FinishReasonFunctionCall:
		return model.FinishToolCalls
	case gopenai.FinishReasonNull:
		return ""
	}
	return model.FinishReason(r)
}
