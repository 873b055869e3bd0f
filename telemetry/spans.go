package telemetry

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

// The values of error.type: the conventions' fallback, and the kinds of
// errors that are not a model call's (whose kind is model.ErrorKind's).
const (
	errorTypeOther    = "_OTHER"
	errorTypeTool     = "tool_error"      // a tool call that failed
	errorTypeStopped  = "stopped"         // an evaluation open when the observer stopped
	errorTypeSubagent = "subagent_failed" // a subagent whose evaluation's process was lost
)

// The span kinds, as options made once.
var (
	internal = trace.WithSpanKind(trace.SpanKindInternal)
	client   = trace.WithSpanKind(trace.SpanKindClient)
)

var (
	errUnfinished = errors.New("the evaluation ended before the call returned")
	errLost       = errors.New("the subagent finished without its evaluation's end (the process running it was lost)")
	errToolCall   = errors.New("the tool call failed")
)

// promptRendered starts an evaluation's invoke_agent span. Its parent is
// the execute_tool span of the call that delegated it, for a subagent the
// engine started on this bus; otherwise the span ctx carries, if any (a
// program's own, or one restored from a remote job's headers).
func (o *Observer) promptRendered(ctx context.Context, env bus.Envelope, e runner.PromptRendered) error {
	key := evalKey{env.SessionID, e.Evaluation}
	name, id, description := e.NS+"/"+e.Key, env.SessionID, ""
	parent := context.Background()
	var links []trace.Link
	if ch := o.children[env.SessionID]; ch != nil {
		name, id, description = ch.name, ch.agentID, ch.description
		if sc := o.delegation(ch); sc.IsValid() {
			parent = trace.ContextWithSpanContext(parent, sc)
			if ch.background {
				links = []trace.Link{{SpanContext: sc}}
			}
		}
	}
	if !trace.SpanContextFromContext(parent).IsValid() {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			parent = trace.ContextWithSpanContext(parent, sc)
		}
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(name),
		semconv.GenAIAgentID(id),
		semconv.GenAIConversationID(env.SessionID),
	}
	if o.opts.Provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(o.opts.Provider))
	}
	if description != "" {
		attrs = append(attrs, semconv.GenAIAgentDescription(description))
	}
	if o.opts.RecordContent && e.Text != "" {
		attrs = append(attrs, semconv.GenAISystemInstructionsKey.String(instructionsJSON(e.Text)))
	}
	spanCtx, span := o.tracer.Start(parent, o.spanName("invoke_agent", name), internal,
		trace.WithTimestamp(env.Time), trace.WithAttributes(attrs...), trace.WithLinks(links...))
	o.evals[key] = &evaluation{span: span, ctx: spanCtx, mark: env.Time}
	return nil
}

// delegation returns the span context of the call that delegated ch: its
// execute_tool span, started now if it was not yet.
func (o *Observer) delegation(ch *child) trace.SpanContext {
	if ch.parentSpan.IsValid() || ch.parent.call == "" {
		return ch.parentSpan
	}
	if c := o.calls[ch.parent]; c != nil {
		ch.parentSpan = o.callSpan(c, time.Time{}).SpanContext()
	} else if sc, ok := o.ended[ch.parent]; ok {
		ch.parentSpan = sc
	}
	return ch.parentSpan
}

// message notes the tool calls an assistant message makes, and with
// RecordContent, the message.
func (o *Observer) message(_ context.Context, env bus.Envelope, m runner.ConversationMessage) error {
	if len(m.ToolCalls) == 0 && !o.opts.RecordContent {
		return nil
	}
	key := evalKey{env.SessionID, m.Evaluation}
	ev := o.evals[key]
	if ev == nil {
		return nil
	}
	for _, c := range m.ToolCalls {
		ck := callKey{env.SessionID, c.ID}
		if prev := o.calls[ck]; prev != nil && prev.span != nil {
			prev.span.End(trace.WithTimestamp(env.Time))
		}
		o.calls[ck] = &toolCall{eval: key, callID: c.ID, name: c.Name}
		ev.calls = append(ev.calls, c.ID)
	}
	if o.opts.RecordContent {
		cm := contentOf(m.Message)
		switch m.Role {
		case model.RoleSystem:
		case model.RoleAssistant:
			ev.answer = &cm
		default:
			ev.messages = append(ev.messages, cm)
		}
	}
	return nil
}

// modelCalled records a chat span, from when the call started to its
// record, and the call's metric points.
func (o *Observer) modelCalled(ctx context.Context, env bus.Envelope, e runner.ModelCalled) error {
	o.metrics.record(ctx, e)
	key := evalKey{env.SessionID, e.Evaluation}
	ev := o.evals[key]
	parent := context.Background()
	if ev != nil {
		parent = ev.ctx
		ev.mark = env.Time
	}
	// The span copies its attributes: the scratch slice serves every call.
	attrs := append(o.scratch[:0], semconv.GenAIOperationNameChat)
	defer func() { o.scratch = attrs[:0] }()
	if o.opts.Provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(o.opts.Provider))
	}
	if e.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(e.Model))
		if ev != nil && !ev.modelSet {
			// The model the evaluation runs on, known at its first call.
			ev.span.SetAttributes(semconv.GenAIRequestModel(e.Model))
			ev.modelSet = true
		}
	}
	if e.ResponseModel != "" {
		attrs = append(attrs, semconv.GenAIResponseModel(e.ResponseModel))
	}
	if e.ResponseID != "" {
		attrs = append(attrs, semconv.GenAIResponseID(e.ResponseID))
	}
	attrs = appendServer(attrs, e.Server)
	if !e.Usage.Unreported && e.Error == "" {
		attrs = append(attrs, semconv.GenAIUsageInputTokens(e.Usage.InputTokens), semconv.GenAIUsageOutputTokens(e.Usage.OutputTokens))
		if e.Usage.CachedInputTokens > 0 {
			attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(e.Usage.CachedInputTokens))
		}
	}
	if e.FinishReason != "" {
		attrs = append(attrs, o.finishReasons(e.FinishReason))
	}
	attrs = o.appendContext(attrs, env.SessionID, e)
	if e.Error != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(e)))
	}
	if o.opts.RecordContent && ev != nil {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(messagesJSON(ev.messages)))
		if ev.answer != nil {
			ev.answer.FinishReason = finishReason(e.FinishReason)
			attrs = append(attrs, semconv.GenAIOutputMessagesKey.String(messagesJSON([]contentMessage{*ev.answer})))
			ev.answer.FinishReason = ""
			ev.messages = append(ev.messages, *ev.answer)
			ev.answer = nil
		}
	}
	name := o.spanName("chat", e.Shown())
	_, span := o.tracer.Start(parent, name, client,
		trace.WithTimestamp(env.Time.Add(-e.Duration)), trace.WithAttributes(attrs...))
	if e.Error != "" {
		span.SetStatus(codes.Error, e.Error)
	}
	span.End(trace.WithTimestamp(env.Time))
	return nil
}

// errorType is error.type of a failed model call: the kind its record
// names, or the conventions' fallback for a record that names none.
func errorType(e runner.ModelCalled) string {
	if e.ErrorType != "" {
		return e.ErrorType
	}
	return errorTypeOther
}

// appendServer appends server.address and server.port of server
// ("host:port", or a host alone), as the conventions name the server a
// client span calls.
func appendServer(attrs []attribute.KeyValue, server string) []attribute.KeyValue {
	if server == "" {
		return attrs
	}
	host, port, err := net.SplitHostPort(server)
	if err != nil {
		return append(attrs, semconv.ServerAddress(server))
	}
	attrs = append(attrs, semconv.ServerAddress(host))
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPort(p))
	}
	return attrs
}

// toolsOffered notes the descriptions of the tools an evaluation offers,
// for the spans of their calls.
func (o *Observer) toolsOffered(_ context.Context, _ bus.Envelope, e runner.ToolsOffered) error {
	for _, spec := range e.Tools {
		if _, known := o.tools[spec.Name]; known || len(o.tools) < maxNames {
			o.tools[spec.Name] = spec.Description
		}
	}
	return nil
}

// toolInvoked ends a call's execute_tool span: started when a subagent
// it delegated to needed it, or now, its duration back.
func (o *Observer) toolInvoked(_ context.Context, env bus.Envelope, e runner.ToolInvoked) error {
	ck := callKey{env.SessionID, e.CallID}
	c := o.calls[ck]
	delete(o.calls, ck)
	key := evalKey{env.SessionID, e.Evaluation}
	ev := o.evals[key]
	if c == nil {
		c = &toolCall{eval: key, callID: e.CallID, name: e.Name}
	}
	if c.span == nil {
		c.span = o.startCall(c, ev, env.Time.Add(-e.Duration))
	}
	if ev != nil {
		ev.mark = env.Time
		ev.calls = removeID(ev.calls, e.CallID)
		ev.ended = append(ev.ended, e.CallID)
		o.ended[ck] = c.span.SpanContext()
		o.lastCall[env.SessionID] = c.span.SpanContext()
	}
	if o.opts.RecordContent {
		c.span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(string(e.Arguments)), semconv.GenAIToolCallResultKey.String(e.Result))
	}
	if !e.Success {
		c.span.SetAttributes(semconv.ErrorTypeKey.String(errorTypeTool))
		c.span.SetStatus(codes.Error, errToolCall.Error())
	}
	c.span.End(trace.WithTimestamp(env.Time))
	return nil
}

// callSpan returns c's execute_tool span, starting it if it was not: at
// the latest mark of its evaluation (the call started after the record
// before it), or at start when its evaluation is unknown.
func (o *Observer) callSpan(c *toolCall, start time.Time) trace.Span {
	if c.span == nil {
		ev := o.evals[c.eval]
		if ev != nil {
			start = ev.mark
		}
		c.span = o.startCall(c, ev, start)
	}
	return c.span
}

// startCall starts the execute_tool span of c, in ev (nil when unknown).
func (o *Observer) startCall(c *toolCall, ev *evaluation, start time.Time) trace.Span {
	parent := context.Background()
	if ev != nil {
		parent = ev.ctx
	}
	attrs := append(make([]attribute.KeyValue, 0, 5), semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(c.name),
		semconv.GenAIToolCallID(c.callID), semconv.GenAIToolTypeKey.String("function"))
	if d := o.tools[c.name]; d != "" {
		attrs = append(attrs, semconv.GenAIToolDescription(d))
	}
	_, span := o.tracer.Start(parent, o.spanName("execute_tool", c.name), internal, trace.WithTimestamp(start),
		trace.WithAttributes(attrs...))
	return span
}

// promptExecuted ends an evaluation's span, with what its model calls
// spent: every evaluation ends with one, as an error when it failed, was
// cancelled or abandoned.
func (o *Observer) promptExecuted(_ context.Context, env bus.Envelope, e runner.PromptExecuted) error {
	key := evalKey{env.SessionID, e.Evaluation}
	ev := o.evals[key]
	if ev == nil {
		return nil
	}
	if !e.Usage.Unreported {
		ev.span.SetAttributes(semconv.GenAIUsageInputTokens(e.Usage.InputTokens), semconv.GenAIUsageOutputTokens(e.Usage.OutputTokens))
	}
	if o.opts.RecordContent {
		if answer, ok := finalAnswer(ev.messages, e.Text); ok {
			ev.span.SetAttributes(semconv.GenAIOutputMessagesKey.String(messagesJSON([]contentMessage{answer})))
		}
	}
	var cause error
	kind := e.ErrorType
	if !e.Succeeded() && !e.Parked() { // a parked evaluation ended, waiting for an answer
		cause = errors.New(e.Error)
		if kind == "" {
			kind = errorTypeOther
		}
	}
	o.endEvaluation(key, ev, env.Time, cause, kind)
	return nil
}

// subagentStarted notes a child the engine started, and which call
// delegated it.
func (o *Observer) subagentStarted(_ context.Context, _ bus.Envelope, e subagent.Started) error {
	ch := &child{parent: callKey{e.ParentID, e.CallID}, agentID: e.AgentID, name: e.Name, description: e.Description, background: e.Background}
	if sc, ok := o.launched[e.SessionID]; ok {
		// A background task whose launching call returned first.
		ch.parentSpan = sc
		delete(o.launched, e.SessionID)
	}
	o.delegation(ch)
	o.children[e.SessionID] = ch
	return nil
}

// taskStarted notes, for a background task whose launching call returned
// before the engine said it started, that call's span: the Task tool
// records TaskStarted with the call's ToolInvoked, in one dispatch.
func (o *Observer) taskStarted(_ context.Context, env bus.Envelope, e subagent.TaskStarted) error {
	sc, ok := o.lastCall[env.SessionID]
	if !ok {
		return nil
	}
	if ch := o.children[e.SessionID]; ch != nil {
		if !ch.parentSpan.IsValid() {
			ch.parentSpan = sc
		}
		return nil
	}
	o.launched[e.SessionID] = sc
	return nil
}

// subagentFinished forgets a child. Its evaluations ended with their
// records; one still open ran in a process that was lost (a remote
// worker's), and ends as an error.
func (o *Observer) subagentFinished(_ context.Context, env bus.Envelope, e subagent.Finished) error {
	delete(o.children, e.SessionID)
	delete(o.launched, e.SessionID)
	for key, ev := range o.evals {
		if key.session == e.SessionID {
			o.endEvaluation(key, ev, env.Time, errLost, errorTypeSubagent)
		}
	}
	return nil
}

// endEvaluation ends ev's span at t — as an error of the kind errType
// when cause is not nil — and the spans of the calls it made that are
// open, and forgets it.
func (o *Observer) endEvaluation(key evalKey, ev *evaluation, t time.Time, cause error, errType string) {
	for _, id := range ev.calls {
		ck := callKey{key.session, id}
		if c := o.calls[ck]; c != nil && c.eval == key {
			if c.span != nil {
				c.span.SetStatus(codes.Error, errUnfinished.Error())
				c.span.End(trace.WithTimestamp(t))
			}
			delete(o.calls, ck)
		}
	}
	for _, id := range ev.ended {
		delete(o.ended, callKey{key.session, id})
	}
	if cause != nil {
		ev.span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		ev.span.SetStatus(codes.Error, cause.Error())
	}
	ev.span.End(trace.WithTimestamp(t))
	delete(o.evals, key)
	delete(o.lastCall, key.session)
}

// finishReasons returns the gen_ai.response.finish_reasons attribute of
// one reason, made once for each of the few reasons there are.
func (o *Observer) finishReasons(r model.FinishReason) attribute.KeyValue {
	if kv, ok := o.reasons[r]; ok {
		return kv
	}
	kv := semconv.GenAIResponseFinishReasons(string(r))
	if len(o.reasons) < maxNames {
		o.reasons[r] = kv
	}
	return kv
}

// maxNames bounds the span names kept.
const maxNames = 1024

// spanName returns "operation target", as the conventions name spans, or
// the operation alone for no target; made once for the names a program
// uses (its prompts, models and tools).
func (o *Observer) spanName(operation, target string) string {
	if target == "" {
		return operation
	}
	key := [2]string{operation, target}
	if name, ok := o.names[key]; ok {
		return name
	}
	name := operation + " " + target
	if len(o.names) < maxNames {
		o.names[key] = name
	}
	return name
}

// removeID returns ids without id.
func removeID(ids []string, id string) []string {
	for i, x := range ids {
		if x == id {
			return append(ids[:i], ids[i+1:]...)
		}
	}
	return ids
}
