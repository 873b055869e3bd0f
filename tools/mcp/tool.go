package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/tools"
)

// tool is one tool of a server, as an offshoot tools.Tool.
type tool struct {
	srv         *server
	name        string // offshoot's name: mcp__SERVER__TOOL
	remote      string // the server's name for it
	description string
	params      json.RawMessage // the server's input schema
	result      json.RawMessage // its output schema, or {}
	concurrent  bool
}

// newTools makes offshoot tools of a server's list, and a warning for each
// tool it has to leave out.
func newTools(s *server, list []*sdk.Tool) ([]*tool, []*ServerError) {
	var out []*tool
	var skipped []*ServerError
	count := map[string]int{}
	for _, t := range list {
		params, err := json.Marshal(t.InputSchema)
		if err != nil || !bytes.HasPrefix(params, []byte("{")) {
			skipped = append(skipped, &ServerError{Server: s.name,
				Err: fmt.Errorf("offers the tool %q without an input schema that is a JSON object; the tool is left out", t.Name)})
			continue
		}
		result := []byte("{}")
		if t.OutputSchema != nil {
			if b, err := json.Marshal(t.OutputSchema); err == nil && bytes.HasPrefix(b, []byte("{")) {
				result = b
			}
		}
		nt := &tool{
			srv: s, name: toolName(s.name, t.Name), remote: t.Name,
			description: describe(s.name, t),
			params:      params, result: result,
			concurrent: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		}
		count[nt.name]++
		out = append(out, nt)
	}
	// Names that collide once sanitized ("a.b" and "a_b") all get a hash
	// suffix, so that none depends on the order the server lists them in.
	for _, t := range out {
		if count[t.name] > 1 {
			t.name = hashed(t.name, s.name, t.remote)
		}
	}
	return out, skipped
}

// describe returns the description the model reads: the server's, trimmed
// and cut to tools.MaxDescription characters; or, when it gives none, a
// sentence naming the tool and the server.
func describe(server string, t *sdk.Tool) string {
	d := strings.TrimSpace(strings.ToValidUTF8(t.Description, ""))
	if d == "" {
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		if title = strings.TrimSpace(title); title != "" {
			d = title + " (the " + t.Name + " tool of the " + server + " MCP server)."
		} else {
			d = "The " + t.Name + " tool of the " + server + " MCP server."
		}
	}
	if utf8.RuneCountInString(d) > tools.MaxDescription {
		r := []rune(d)[:tools.MaxDescription-1]
		d = strings.TrimSpace(string(r)) + "…"
	}
	return d
}

// Spec describes the tool: named mcp__SERVER__TOOL (see ToolName), with
// the server's description and input schema, its output schema or {},
// no examples, and concurrent-safe when the server marks it read-only.
func (t *tool) Spec() tools.Spec {
	return tools.Spec{Name: t.name, Description: t.description, Params: t.params, Result: t.result, ConcurrentSafe: t.concurrent}
}

// Call calls the tool on its server with the model's arguments, within
// the call timeout and ctx. The result's text is what the model reads; a
// result the server marks as an error is a failed call with the server's
// text. A server that cannot be reached, a timeout or a protocol error is a
// failed call whose Err says what happened. Call never panics.
func (t *tool) Call(ctx context.Context, _ *tools.Invocation, args json.RawMessage) (out tools.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = t.failed(&tools.PanicError{Value: p, Stack: debug.Stack()})
		}
	}()
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		err := &tools.ValidationError{Tool: t.name, Err: errors.New("the arguments must be a JSON object")}
		return tools.Outcome{Text: err.Error(), Err: err}
	}
	c, err := t.srv.get(ctx)
	if err != nil {
		return t.failed(err)
	}
	timeout := t.srv.m.opts.callTimeout
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.session.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case err == nil && res == nil:
		return t.failed(&ServerError{Server: t.srv.name, Err: errors.New("answered the call with nothing")})
	case err == nil:
		return tools.Outcome{Text: resultText(res), Success: !res.IsError, Params: args}
	case t.srv.m.ctx.Err() != nil:
		return t.failed(errClosed)
	case ctx.Err() != nil:
		return t.failed(ctx.Err())
	case callCtx.Err() != nil:
		return t.failed(fmt.Errorf("the MCP tool %q of server %q did not answer within %v, so the call was cancelled; try a smaller request", t.remote, t.srv.name, timeout))
	}
	var refused *jsonrpc.Error
	if errors.As(err, &refused) && refused.Code != codeRejectedByTransport {
		return t.failed(&ServerError{Server: t.srv.name, Err: fmt.Errorf("refused the call: %s", refused.Message)})
	}
	// A broken pipe to a command server means it is going away; over HTTP
	// a failed request may be a passing fault, and the connection stays.
	if c.link.http == nil && (c.link.cmd != nil || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed)) {
		if stopped := t.stopped(c); stopped != nil {
			return t.failed(fmt.Errorf("the server stopped while the tool was running: %w", stopped))
		}
	}
	unreachable := t.srv.serverError(fmt.Errorf("could not be reached: %w", err), "")
	t.srv.m.warn(unreachable)
	return t.failed(unreachable)
}

// codeRejectedByTransport is the JSON-RPC error code the SDK gives a
// request that never reached the server (an HTTP request that failed).
const codeRejectedByTransport = -32005

// stopped returns why c ended, when it has ended on its own or ends
// shortly; nil when it is still alive.
func (t *tool) stopped(c *conn) *ServerError {
	timer := time.NewTimer(2*terminateGrace + 2*pipeGrace)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.err
	case <-timer.C:
		return nil
	}
}

// failed is the outcome of a call that failed outside the server's own
// result.
func (t *tool) failed(err error) tools.Outcome {
	e := &tools.ExecutionError{Tool: t.name, Err: err}
	return tools.Outcome{Text: e.Error(), Err: e}
}
