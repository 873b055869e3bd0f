package offshoot

import (
	"context"

	"github.com/offshoot-dev/offshoot/tools"
)

// For the external tests.
const (
	DefaultSystemPrompt = defaultSystemPrompt
	MaxSummary          = maxSummary
)

// AskUserTool is the AskUserQuestion tool asking ask, for the external
// tests (outside a client: a wait is never parked).
var AskUserTool = func(ask func(context.Context, string) (string, error)) (tools.Tool, error) {
	return askUserTool(&Client{}, ask)
}
