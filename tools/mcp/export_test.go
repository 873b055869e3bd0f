package mcp

import "time"

// What the package keeps to itself, for its external tests.
type ConfigError = configError

var ErrClosed = errClosed

const MaxConfigBytes = maxConfigBytes

// WithStartTimeout bounds how long starting a server and listing its tools
// may take, for tests that must not wait 30 seconds.
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithCallTimeout bounds one tool call, for tests that must not wait 5
// minutes.
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.callTimeout = d } }

// ToolNameOf is the name the model calls a server's tool by.
var ToolNameOf = toolName

// Values returns c without the record of what its file wrote, for
// comparing the values it holds.
func Values(c ServerConfig) ServerConfig {
	c.written = nil
	return c
}
