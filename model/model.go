// Package model defines the provider-neutral interface between the agent
// loop and a language model: requests, messages, tool calls, responses,
// usage, the errors a caller can branch on, and a Router that resolves
// named models (main, light, inherit, aliases) from configuration.
//
// The package holds only types and pure functions. Adapters live in
// subpackages: model/openai speaks the OpenAI Chat Completions wire format
// (OpenAI, vLLM, llama.cpp server, Ollama), and model/scripted is a
// deterministic model for tests, examples and demos, with record and replay.
package model

import (
	"context"
	"encoding/json"
)

// Model generates the next assistant message for a conversation.
//
// Implementations must be safe for concurrent use: subagents share one
// Model and call it in parallel. Generate must honour ctx (return promptly
// once it is done) and return errors that can be matched with errors.Is and
// errors.As: ErrRateLimited (*RateLimitError), ErrContextLength, ErrAuth,
// *APIError, or the context's error.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Func adapts an ordinary function to the Model interface, like
// http.HandlerFunc.
type Func func(ctx context.Context, req *Request) (*Response, error)

// Generate calls f(ctx, req).
func (f Func) Generate(ctx context.Context, req *Request) (*Response, error) {
	return f(ctx, req)
}

// Request is one call to a model: the conversation so far, the tools the
// model may call and the options that shape its answer. A Request is
// treated as read-only by models; callers must not mutate it while a call
// is in flight. A model must not keep a *Request past the call: the
// caller may reuse it (the runner does, from one turn to the next) — copy
// what must outlive the call.
type Request struct {
	// Model is the provider's model id. Empty means the model's default
	// (for example the id an adapter was configured with).
	Model string `json:"model,omitempty"`
	// Messages is the conversation, oldest first.
	Messages []Message `json:"messages,omitempty"`
	// Tools are the functions the model may call.
	Tools []ToolSpec `json:"tools,omitempty"`
	// ToolChoice is "" (the provider's default), "auto" (the model decides
	// whether to call tools), "none" (no tool calls), "required" (at least
	// one tool call), or the name of the one tool the model must call;
	// every adapter understands these.
	ToolChoice string `json:"tool_choice,omitempty"`
	// Output, when set, asks for a final answer that is JSON matching a
	// schema (structured output).
	Output *OutputSpec `json:"output,omitempty"`
	// Temperature is the sampling temperature; nil means the provider
	// default.
	Temperature *float64 `json:"temperature,omitempty"`
	// TopP is nucleus sampling; nil means the provider default.
	TopP *float64 `json:"top_p,omitempty"`
	// MaxTokens bounds the tokens generated; 0 means the provider default.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Stop lists sequences at which generation stops.
	Stop []string `json:"stop,omitempty"`
	// Seed asks for deterministic sampling where the provider supports it.
	Seed *int `json:"seed,omitempty"`
	// CacheKey, when set, asks the provider to route requests with the
	// same key to the same prompt cache, where it takes one (OpenAI's
	// prompt_cache_key): requests that begin alike — a conversation's
	// turns, the forks that carry it on — then read their common opening
	// from the cache, at a fraction of the price.
	CacheKey string `json:"cache_key,omitempty"`
}

// ToolSpec describes a function the model may call.
type ToolSpec struct {
	// Name is what the model uses to call the tool.
	Name string `json:"name"`
	// Description tells the model what the tool is for.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object. Empty means an
	// object without properties.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// OutputSpec asks for a structured final answer: JSON text matching Schema.
type OutputSpec struct {
	// Name identifies the schema to the provider (letters, digits, _ and -).
	Name string `json:"name"`
	// Description tells the model what the output is for.
	Description string `json:"description,omitempty"`
	// Schema is the JSON Schema the answer must match.
	Schema json.RawMessage `json:"schema"`
	// Strict asks the provider to enforce the schema exactly. Adapters
	// rewrite the schema as strict modes require (see model/openai).
	Strict bool `json:"strict,omitempty"`
}

// FinishReason says why the model stopped generating.
type FinishReason string

// Finish reasons common to providers. Adapters pass any other value through
// unchanged.
const (
	// FinishStop: the model finished its answer or hit a stop sequence.
	FinishStop FinishReason = "stop"
	// FinishLength: the answer was cut at the token limit.
	FinishLength FinishReason = "length"
	// FinishToolCalls: the model is waiting for the results of its tool
	// calls.
	FinishToolCalls FinishReason = "tool_calls"
	// FinishContentFilter: the provider's content filter cut the answer.
	FinishContentFilter FinishReason = "content_filter"
	// FinishRefusal: the model refused; the message content holds its
	// explanation.
	FinishRefusal FinishReason = "refusal"
)

// Response is the model's answer to a Request.
type Response struct {
	// Message is the assistant message: text, tool calls, or both.
	Message Message `json:"message"`
	// FinishReason says why generation stopped.
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	// Usage counts the tokens this call consumed.
	Usage Usage `json:"usage"`
	// Model is the id of the model that answered, as the provider reports
	// it (which may differ from the id asked for: "gpt-4.1" is answered by
	// "gpt-4.1-2025-04-14").
	Model string `json:"model,omitempty"`
	// ID is the provider's id of this answer ("chatcmpl-…"), empty when it
	// gives none.
	ID string `json:"id,omitempty"`
}

// Usage counts tokens. The zero value is no usage.
type Usage struct {
	// InputTokens is the number of prompt tokens, those read from or
	// written to a prompt cache included.
	InputTokens int `json:"input_tokens"`
	// CachedInputTokens is how many of InputTokens the provider read from
	// its prompt cache (a repeated prefix, billed at a fraction of the
	// price), where it says so: OpenAI's
	// usage.prompt_tokens_details.cached_tokens.
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
	// CacheWriteTokens is how many of InputTokens the provider wrote to
	// its prompt cache for later requests to read (billed above the plain
	// price), where it says so: Anthropic's cache_creation_input_tokens.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// OutputTokens is the number of generated tokens.
	OutputTokens int `json:"output_tokens"`
	// TotalTokens is the total the provider bills, normally input + output.
	TotalTokens int `json:"total_tokens"`
	// Unreported is set when the provider reported no usage for a call
	// counted here (some servers send none): the counts are then a lower
	// bound, and "0 tokens" means "unknown".
	Unreported bool `json:"unreported,omitempty"`
}

// Add returns the sum of u and o, field by field. Usage is a value: write
// total = total.Add(resp.Usage).
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + o.InputTokens,
		CachedInputTokens: u.CachedInputTokens + o.CachedInputTokens,
		CacheWriteTokens:  u.CacheWriteTokens + o.CacheWriteTokens,
		OutputTokens:      u.OutputTokens + o.OutputTokens,
		TotalTokens:       u.TotalTokens + o.TotalTokens,
		Unreported:        u.Unreported || o.Unreported,
	}
}

// IsZero reports whether u counts no tokens at all.
func (u Usage) IsZero() bool { return u == Usage{} }
