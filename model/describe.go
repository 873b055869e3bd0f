package model

// Describer is implemented by models that can say, before any call, what
// they call: the model id they send when a Request names none, who serves
// it and where. It is optional, like Streamer: records and traces use it
// to name a model by its id ("gpt-4.1") rather than by the name a program
// routes to it by ("main"). openai.Model, anthropic.Model and the
// scripted models are Describers; a wrapper should pass its inner model's description on.
type Describer interface {
	Describe() Description
}

// Description says what a model calls. Every field is empty when unknown.
type Description struct {
	// ID is the model id sent when a Request names none.
	ID string `json:"id,omitempty"`
	// Provider names who serves it, as OpenTelemetry's
	// gen_ai.provider.name does: "openai" for an OpenAI-compatible server,
	// "anthropic" for Anthropic's API.
	Provider string `json:"provider,omitempty"`
	// ServerAddress and ServerPort are the host and port of the server the
	// model calls (from its base URL; the scheme's port when it names none).
	ServerAddress string `json:"server_address,omitempty"`
	ServerPort    int    `json:"server_port,omitempty"`
	// ContextWindow and MaxOutputTokens are the window and the answer's
	// bound the model was configured with (model.ModelConfig), 0 when not
	// configured: the runner then takes DefaultContextWindow's.
	ContextWindow   int `json:"context_window,omitempty"`
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
}

// Describe returns m's description when m is a Describer, and the zero
// Description otherwise (also for a nil m).
func Describe(m Model) Description {
	if d, ok := m.(Describer); ok && d != nil {
		return d.Describe()
	}
	return Description{}
}
