package openai

// The defaults the package keeps to itself, for its external tests.
const (
	DefaultMaxRetries = defaultMaxRetries
)
