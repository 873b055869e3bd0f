package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"

	gopenai "github.com/sashabaranov/go-openai"

	"github.com/offshoot-dev/offshoot/model"
)

// emptyParameters is sent for a tool without a parameters schema.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// outputMapping carries what is needed to map a strict structured answer
// back to the caller's schema.
type outputMapping struct {
	schema any // the original schema, parsed
}

// chatRequest builds the go-openai request for req.
func (m *Model) chatRequest(req *model.Request) (gopenai.ChatCompletionRequest, *outputMapping, error) {
	creq := gopenai.ChatCompletionRequest{Model: req.Model, Stop: req.Stop, Seed: req.Seed}
	if creq.Model == "" {
		creq.Model = m.cfg.Model
	}
	if creq.Model == "" {
		return creq, nil, errors.New("openai: no model id: set Config.Model (LLM_MODEL_ID) or Request.Model")
	}
	creq.Messages = make([]gopenai.ChatCompletionMessage, 0, len(req.Messages))
	for i, msg := range req.Messages {
		cm, err := chatMessage(msg)
		if err != nil {
			return creq, nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		creq.Messages = append(creq.Messages, cm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		} else if !json.Valid(params) {
			return creq, nil, fmt.Errorf("openai: tool %q: parameters are not valid JSON", t.Name)
		}
		creq.Tools = append(creq.Tools, gopenai.Tool{
			Type:     gopenai.ToolTypeFunction,
			Function: &gopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	switch req.ToolChoice {
	case "":
	case model.ToolChoiceAuto, model.ToolChoiceNone, model.ToolChoiceRequired:
		creq.ToolChoice = req.ToolChoice
	default:
		creq.ToolChoice = gopenai.ToolChoice{Type: gopenai.ToolTypeFunction, Function: gopenai.ToolFunction{Name: req.ToolChoice}}
	}
	if req.Temperature != nil {
		creq.Temperature = sampling(*req.Temperature)
	}
	if req.TopP != nil {
		creq.TopP = sampling(*req.TopP)
	}
	if m.cfg.LegacyMaxTokens {
		creq.MaxTokens = req.MaxTokens
	} else {
		creq.MaxCompletionTokens = req.MaxTokens
	}
	var out *outputMapping
	if o := req.Output; o != nil {
		schema := o.Schema
		if o.Strict {
			var err error
			if schema, err = strictSchema(o.Schema); err != nil {
				return creq, nil, fmt.Errorf("openai: %w", err)
			}
			original, _ := parseOrdered(o.Schema) // valid: strictSchema parsed it
			out = &outputMapping{schema: original}
		} else if !json.Valid(schema) {
			return creq, nil, errors.New("openai: output schema is not valid JSON")
		}
		creq.ResponseFormat = &gopenai.ChatCompletionResponseFormat{
			Type: gopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &gopenai.ChatCompletionResponseFormatJSONSchema{
				Name:        schemaName(o.Name),
				Description: o.Description,
				Schema:      json.RawMessage(schema),
				Strict:      o.Strict,
			},
		}
	}
	return creq, out, nil
}

// sampling converts a sampling parameter for go-openai, whose float32
// fields are omitted when zero: an explicit 0 is sent as the smallest
// positive float32, which servers treat as 0.
func sampling(v float64) float32 {
	if v == 0 {
		return math.SmallestNonzeroFloat32
	}
	return float32(v)
}

func chatMessage(msg model.Message) (gopenai.ChatCompletionMessage, error) {
	cm := gopenai.ChatCompletionMessage{Content: msg.Content}
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
func convertResponse(resp gopenai.ChatCompletionResponse, out *outputMapping) (*model.Response, error) {
	if len(resp.Choices) == 0 {
		return nil, &model.APIError{Message: "the server returned a chat completion without choices"}
	}
	choice := resp.Choices[0]
	msg := model.Message{Role: model.RoleAssistant, Content: choice.Message.Content}
	for _, tc := range choice.Message.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	finish := finishReason(choice.FinishReason)
	if msg.Content == "" && choice.Message.Refusal != "" {
		msg.Content = choice.Message.Refusal
		finish = model.FinishRefusal
	} else if out != nil && msg.Content != "" && len(msg.ToolCalls) == 0 {
		msg.Content = unstrict(out, msg.Content)
	}
	usage := model.Usage{
		InputTokens:  resp.Usage.PromptTokens,
		OutputTokens: resp.Usage.CompletionTokens,
		TotalTokens:  resp.Usage.TotalTokens,
	}
	if usage.TotalTokens == 0 {
		usage.TotalTokens = usage.InputTokens + usage.OutputTokens
	}
	return &model.Response{Message: msg, FinishReason: finish, Usage: usage, Model: resp.Model}, nil
}

// unstrict removes the nulls strict mode forced into optional fields. An
// answer that is not JSON is returned unchanged for the caller to report.
func unstrict(out *outputMapping, content string) string {
	v, err := parseOrdered([]byte(content))
	if err != nil {
		return content
	}
	root, _ := out.schema.(*object)
	b, err := marshalOrdered(stripNulls(out.schema, root, v))
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
