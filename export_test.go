package offshoot

// For the external tests.
const (
	DefaultSystemPrompt = defaultSystemPrompt
	MaxSummary          = maxSummary
)
