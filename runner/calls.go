package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// reducerFailurePrefix starts the text the model sees when the events of a
// tool call could not be applied.
const reducerFailurePrefix = "Reducer errors prevented applying tool result: "

// maxArgumentBytes bounds the arguments of one tool call: a call with more
// fails as invalid arguments, which the model can correct, and its
// arguments are neither run nor kept in the conversation.
const maxArgumentBytes = 1 << 20

// maxResultBytes bounds the text of a tool result the model reads and the
// session records; the rest is cut, with a note saying so.
const maxResultBytes = 256 << 10

// callResult is one executed tool call, waiting to be recorded.
type callResult struct {
	call     model.ToolCall
	outcome  tools.Outcome
	rec      ToolInvoked
	approval bool // Approve asked to wait
}

// runTools executes the turn's calls from r.next on, in order. Each run of
// consecutive concurrent-safe calls runs in parallel from the state after
// the calls before it; its results are recorded in call order afterwards,
// so the session ends up the same whatever the scheduling. A call that runs
// alone runs on the loop's own goroutine (see runOwn). A tool must not call
// runtime.Goexit: one that does fails the evaluation, naming the tool.
func (r *run) runTools() error {
	calls := r.calls
	for r.next < len(calls) {
		i := r.next
		j := i + 1
		if j < len(calls) && r.concurrentSafe(calls[i]) { // the last call runs alone
			for j < len(calls) && r.concurrentSafe(calls[j]) {
				j++
			}
		}
		if j == i+1 {
			var res callResult
			r.toolsRunning(calls[i:j])
			r.execute(calls[i], &res)
			if r.toolsRunning(nil) {
				return errAbandoned
			}
			if err := r.ctx.Err(); err != nil {
				return err
			}
			if w := r.parked(&res); w != nil {
				return w
			}
			if err := r.record(&res); err != nil {
				return err
			}
			r.next = j
			continue
		}
		group := calls[i:j]
		results := make([]callResult, len(group))
		r.toolsRunning(group)
		var wg sync.WaitGroup
		for k := range group {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.execute(group[k], &results[k])
			}()
		}
		wg.Wait()
		if r.toolsRunning(nil) {
			return errAbandoned
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
		for k := range results {
			if errors.Is(results[k].outcome.Err, errGoexit) {
				return fmt.Errorf("%w: tool %q must return one", errGoexit, group[k].Name)
			}
		}
		var wait *Waiting
		for k := range results {
			if w := r.parked(&results[k]); w != nil {
				if wait == nil {
					wait = w
					continue
				}
				results[k].outcome = tools.Outcome{Text: notAskedText}
			}
			if err := r.record(&results[k]); err != nil {
				return err
			}
		}
		if wait != nil {
			return wait
		}
		r.next = j
	}
	return nil
}

func (r *run) concurrentSafe(c model.ToolCall) bool {
	t, ok := r.toolset.Lookup(c.Name)
	return ok && t.Spec().ConcurrentSafe
}

// execute runs one call into res. A fault of the tool stays inside the
// call: a panic (which tools.New's tools recover, but a hand-written Tool
// may not) becomes the call's failed result "Tool 'NAME' execution failed:
// …", as does a result holding a nil event, which the session could not
// dispatch. A runtime.Goexit in the tool is recorded in res as errGoexit on
// the goroutine's way out (see runOwn).
func (r *run) execute(c model.ToolCall, res *callResult) {
	compact, valid := compactArgs(c.Arguments)
	*res = callResult{call: c, rec: ToolInvoked{Evaluation: r.eval, NS: r.rendered.NS, Key: r.rendered.Key, Name: c.Name, CallID: c.ID, Arguments: compact}}
	t, ok := r.toolset.Lookup(c.Name)
	if !ok {
		res.outcome = tools.Outcome{Text: fmt.Sprintf("Unknown tool '%s'. Available tools: %s", clipName(c.Name), strings.Join(r.toolset.Names(), ", "))}
		return
	}
	if n, over := r.oversized[c.ID]; over {
		err := &tools.ValidationError{Tool: t.Spec().Name, Err: &serde.ValidationError{Reason: fmt.Sprintf(
			"the arguments are %s, more than the %s a call may have; send smaller arguments (write a large file in parts, with edit_file, say)",
			byteSize(n), byteSize(maxArgumentBytes))}}
		res.outcome = tools.Outcome{Text: err.Error(), Err: err}
		return
	}
	// The tool gets the arguments as the model sent them, sharing the
	// record's copy when they are the same bytes (already compact).
	args := compact
	if sent := strings.TrimSpace(c.Arguments); !valid || (sent != "" && sent != string(compact)) {
		args = json.RawMessage(sent)
	}
	// Valid arguments were checked as JSON by compactArgs: only an object
	// is left to make sure of.
	if !valid || args[0] != '{' {
		if err := checkArguments(c.Name, args); err != nil {
			res.outcome = tools.Outcome{Text: err.Error(), Err: err}
			return
		}
	}
	inv := &tools.Invocation{
		Session: r.req.Session, Bus: r.req.Session.Bus(), CallID: c.ID,
		PromptNS: r.rendered.NS, PromptKey: r.rendered.Key, Tools: r.toolset,
		Model: r.req.Model, ModelName: r.req.ModelName, CacheKey: r.cacheKey, Logger: r.req.Logger,
	}
	started := r.clock()
	returned := false
	defer func() {
		if !returned {
			err := errGoexit
			if v := recover(); v != nil {
				err = &tools.PanicError{Value: v, Stack: debug.Stack()}
			}
			res.outcome = failed(t.Spec().Name, err)
		}
		res.rec.Duration = r.clock().Sub(started)
		for i, e := range res.outcome.Events {
			if e == nil {
				res.outcome = failed(t.Spec().Name, fmt.Errorf("its result holds a nil event (event %d of %d); return only non-nil events", i+1, len(res.outcome.Events)))
				break
			}
		}
	}()
	if r.req.Approve != nil {
		text, rewritten, err := r.approve(inv, c, t.Spec().Name)
		if err != nil {
			res.outcome = tools.Outcome{Text: text}
			if w, ok := errors.AsType[*Waiting](err); ok {
				res.outcome.Err, res.approval = w, true
			} else {
				res.rec.Denied = true
			}
			returned = true
			return
		}
		if len(rewritten) > 0 {
			if err := checkArguments(t.Spec().Name, rewritten); err != nil {
				res.outcome = tools.Outcome{Text: err.Error(), Err: err}
				returned = true
				return
			}
			args, c.Arguments = rewritten, string(rewritten)
		}
	}
	res.outcome = t.Call(r.toolCtx, inv, args)
	returned = true
	if r.req.AfterTool != nil {
		r.afterTool(inv, c, &res.outcome)
	}
}

// afterTool adds what Request.AfterTool says of the call c to its outcome.
func (r *run) afterTool(inv *tools.Invocation, c model.ToolCall, o *tools.Outcome) {
	defer func() {
		if v := recover(); v != nil { // a broken AfterTool adds nothing
			r.req.Logger.Warn("runner: AfterTool panicked; the result goes as it is", "tool", c.Name, "panic", fmt.Sprint(v))
		}
	}()
	if note := strings.TrimSpace(r.req.AfterTool(r.toolCtx, inv, c, o.Text)); note != "" {
		o.Text += "\n\n" + note
	}
}

// checkArguments checks that args, trimmed and not empty, are one JSON
// object, so that no tool — a hand-written one included — runs on
// malformed or non-object arguments. Otherwise the call fails as a typed
// tool's would: "Tool validation failed: NAME: must be a JSON object, got
// an array" or "…: the arguments are not valid JSON: REASON". Arguments
// that pass cost one json.Valid scan.
func checkArguments(name string, args json.RawMessage) error {
	if args[0] == '{' && json.Valid(args) {
		return nil
	}
	var reason string
	if err := json.Unmarshal(args, new(json.RawMessage)); err != nil {
		reason = "the arguments are not valid JSON: " + syntaxReason(err) + "; send one JSON object"
	} else {
		reason = "must be a JSON object, got " + jsonKind(args[0])
	}
	return &tools.ValidationError{Tool: name, Err: &serde.ValidationError{Reason: reason}}
}

// syntaxReason words a JSON syntax error briefly, with its offset when
// it has one inside the input.
func syntaxReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Error() != "unexpected end of JSON input" {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return err.Error()
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// approve asks Request.Approve whether call c of the tool name may run,
// and when it may not, returns its error and the text the model reads;
// rewritten are the arguments it is to run with instead of the model's, if
// Approve said so (see Request.Approve).
func (r *run) approve(inv *tools.Invocation, c model.ToolCall, name string) (denial string, rewritten json.RawMessage, err error) {
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("the approval check failed: panic: %v", v)
			}
		}()
		err = r.req.Approve(r.approveCtx(c), inv, c)
	}()
	var rw interface{ Arguments() json.RawMessage }
	switch {
	case err == nil:
		return "", nil, nil
	case errors.As(err, &rw):
		return "", bytes.TrimSpace(rw.Arguments()), nil
	}
	return fmt.Sprintf("Permission to use the tool '%s' was denied: %s", name, err.Error()), nil, err
}

// errAbandoned stops the loop of an abandoned evaluation (see
// run.abandon): its caller has its result already.
var errAbandoned = errors.New("runner: the evaluation was abandoned")

// errGoexit is the failure of an evaluation whose tool ended its goroutine.
var errGoexit = errors.New("runner: a tool ended its goroutine (runtime.Goexit) instead of returning a result")

// failed is the outcome of a call of the tool name that failed with err.
func failed(name string, err error) tools.Outcome {
	e := &tools.ExecutionError{Tool: name, Err: err}
	return tools.Outcome{Text: e.Error(), Err: e}
}

// maxNameEcho is the most bytes of an unknown tool's name the model is
// shown back.
const maxNameEcho = 100

// clipName returns a tool name the model gave, cut to maxNameEcho bytes.
func clipName(name string) string {
	if len(name) <= maxNameEcho {
		return name
	}
	return strings.ToValidUTF8(name[:maxNameEcho], "") + "…"
}

// record dispatches the call's ToolInvoked record and its tool message
// with the tool's events in one atomic dispatch, and appends the tool
// message the model will see. A reducer's rejection is the model's to deal
// with: then nothing of the call is applied, and only the tool message
// saying why is recorded, for the conversation. Any other failure to
// record (a closed session) ends the evaluation.
func (r *run) record(res *callResult) error {
	o := res.outcome
	if a := r.answering; a != nil && a.call.ID == res.call.ID { // the answer's call
		done := a.wait
		done.Answered, r.answering = true, nil
		o.Events = append(o.Events[:len(o.Events):len(o.Events)], done)
	}
	if len(o.Text) > maxResultBytes {
		o.Text = clipResult(o.Text)
		o.ValueJSON, o.Value = nil, nil // the value is in the text, cut
	}
	res.rec.Result, res.rec.Success = o.Text, o.Success
	// Like the model's text, the record leaves a zero value out.
	if o.ValueJSON != nil {
		res.rec.Value = o.ValueJSON
	} else if o.Value != nil && !reflect.ValueOf(o.Value).IsZero() {
		if v, err := json.Marshal(o.Value); err == nil {
			res.rec.Value = v
		}
	}
	msg := ConversationMessage{Evaluation: r.eval, Message: model.ToolMessage(res.call.ID, res.call.Name, o.Text)}
	msg.Failed = !o.Success
	var err error
	if len(o.Events) == 0 {
		err = r.req.Session.Dispatch(r.ctx, res.rec, msg)
	} else {
		events := make([]any, 0, 2+len(o.Events))
		events = append(events, res.rec, msg)
		err = r.req.Session.Dispatch(r.ctx, append(events, o.Events...)...)
	}
	if err != nil {
		var re *session.ReducerError
		if !errors.As(err, &re) {
			return err
		}
		// The model reads the reducer's own words; the types and the
		// position in the batch are the program's business.
		msg.Content, msg.Failed = reducerFailurePrefix+re.Err.Error(), true
		if err := r.req.Session.Dispatch(r.ctx, msg); err != nil {
			return err
		}
	}
	r.resp.ToolCalls++
	if r.used == nil {
		r.used = map[string]bool{}
	}
	if name := res.call.Name; !r.used[name] {
		if _, known := r.toolset.Lookup(name); known {
			r.used[name] = true
			r.resp.ToolsUsed = append(r.resp.ToolsUsed, name)
		}
	}
	r.resp.Messages = append(r.resp.Messages, msg.Message)
	return nil
}

// compactArgs returns the arguments compacted when they are valid JSON
// (valid), and as a JSON string otherwise, so the record is always valid
// JSON. Arguments that are compact already (as models send them, mostly)
// are copied as they are, without json.Compact's second pass.
func compactArgs(args string) (compact json.RawMessage, valid bool) {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}"), true
	}
	b := []byte(strings.Trim(args, " \t\n\r")) // JSON's white space only
	if !json.Valid(b) {
		s, _ := json.Marshal(args)
		return s, false
	}
	if isCompact(b) {
		return b, true
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, b) // valid JSON: it cannot fail
	return buf.Bytes(), true
}

// isCompact reports whether valid JSON has no white space between its
// tokens (a string's own spaces are its content).
func isCompact(js []byte) bool {
	inString, escaped := false, false
	for _, c := range js {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == ' ', c == '\t', c == '\n', c == '\r':
			return false
		}
	}
	return true
}

// clipResult cuts a tool result's text to maxResultBytes, at a character
// boundary, and says how much was cut.
func clipResult(text string) string {
	cut := maxResultBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n[… %s more cut: a tool result may have at most %s; ask for less, such as a range of lines or a narrower pattern]",
		byteSize(len(text)-cut), byteSize(maxResultBytes))
}

// byteSize words a number of bytes: "10 MiB", "256 KiB", "812 bytes".
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
