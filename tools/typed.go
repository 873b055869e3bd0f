package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/offshoot-dev/offshoot/internal/deepcopy"
	"github.com/offshoot-dev/offshoot/serde"
)

// Handler is the Go function behind a typed tool. It gets the call's ctx
// (which carries the deadline), the call's environment and the decoded,
// validated parameters. It returns the Result the model and the session
// see, or an error, which the model sees as
// "Tool 'NAME' execution failed: ERROR" — except a *ValidationError, for
// argument checks only the handler can make, which the model sees as
// "Tool validation failed: NAME: …" like any other invalid argument.
type Handler[P, R any] func(ctx context.Context, inv *Invocation, params P) (Result[R], error)

// New builds a tool named name, described to the model by description,
// whose calls run handler. P, the parameter type, must be a struct: the
// model's arguments are a JSON object decoded into it (see the package
// documentation). R, the result type, is any type with a JSON form.
//
// Construction problems (a bad name or description, a P that is not a
// struct, types without a JSON Schema, options of other types) are
// returned joined; New never panics.
func New[P, R any](name, description string, handler Handler[P, R], opts ...Option) (Tool, error) {
	var c config
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	errs := c.errs
	if err := checkName(name); err != nil {
		errs = append(errs, err)
	}
	desc, err := cleanDescription(name, description)
	if err != nil {
		errs = append(errs, err)
	}
	t := &typed[P, R]{
		name:         name,
		handler:      handler,
		excludeValue: c.excludeValue,
	}
	pt := reflect.TypeFor[P]()
	if handler == nil {
		errs = append(errs, fmt.Errorf("tools: tool %q needs a handler", name))
	}
	if pt.Kind() != reflect.Struct {
		errs = append(errs, fmt.Errorf("tools: tool %q: parameters must be a struct (the model sends a JSON object), got %s; use struct{} for none", name, pt))
	}
	if c.defaults != nil {
		d, ok := c.defaults.(P)
		if !ok {
			errs = append(errs, fmt.Errorf("tools: tool %q: WithDefaults got a %T, want the tool's parameter type %s", name, c.defaults, pt))
		} else {
			t.defaults = d
		}
	}
	t.copyDefaults = pt.Kind() == reflect.Struct && c.defaults != nil && hasReferences(pt, map[reflect.Type]bool{})
	if err := t.buildSchemas(c.defaults != nil); err != nil {
		errs = append(errs, err)
	}
	if err := t.buildExamples(c.examples); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	t.spec = Spec{
		Name: name, Description: desc, Params: t.paramsSchema, Result: t.resultSchema, Examples: t.examples,
		ConcurrentSafe: c.concurrentSafe, State: c.state, Reducers: c.reducers,
	}
	return t, nil
}

// typed is the Tool New builds.
type typed[P, R any] struct {
	name                       string
	spec                       Spec
	handler                    Handler[P, R]
	defaults                   P
	copyDefaults               bool // defaults hold references: deep-copy them per call
	paramsSchema, resultSchema json.RawMessage
	examples                   []rawExample
	excludeValue               bool
}

// Spec describes the tool (see Tool).
func (t *typed[P, R]) Spec() Spec { return t.spec }

// buildSchemas infers the parameter and result schemas.
func (t *typed[P, R]) buildSchemas(withDefaults bool) error {
	var opts serde.SchemaOptions
	if withDefaults {
		opts.Defaults = t.defaults
	}
	ps, err := serde.SchemaFor(reflect.TypeFor[P](), opts)
	if err != nil {
		return fmt.Errorf("tools: tool %q: parameter schema: %w", t.name, err)
	}
	if t.paramsSchema, err = json.Marshal(ps); err != nil {
		return fmt.Errorf("tools: tool %q: parameter schema: %w", t.name, err)
	}
	rs, err := serde.SchemaFor(reflect.TypeFor[R](), serde.SchemaOptions{})
	if err != nil {
		return fmt.Errorf("tools: tool %q: result schema: %w", t.name, err)
	}
	if t.resultSchema, err = json.Marshal(rs); err != nil {
		return fmt.Errorf("tools: tool %q: result schema: %w", t.name, err)
	}
	return nil
}

// buildExamples checks the examples against the tool's types and encodes
// them.
func (t *typed[P, R]) buildExamples(examples []any) error {
	var errs []error
	for i, e := range examples {
		ex, ok := e.(Example[P, R])
		if !ok {
			errs = append(errs, fmt.Errorf("tools: tool %q: example %d is a %T, want a tools.Example[%s, %s]", t.name, i, e, reflect.TypeFor[P](), reflect.TypeFor[R]()))
			continue
		}
		if err := serde.Validate(ex.Input); err != nil {
			errs = append(errs, fmt.Errorf("tools: tool %q: example %d (%q) has invalid input: %w", t.name, i, ex.Description, err))
			continue
		}
		in, err := json.Marshal(ex.Input)
		if err != nil {
			errs = append(errs, fmt.Errorf("tools: tool %q: example %d input: %w", t.name, i, err))
			continue
		}
		out, err := json.Marshal(ex.Output)
		if err != nil {
			errs = append(errs, fmt.Errorf("tools: tool %q: example %d output: %w", t.name, i, err))
			continue
		}
		t.examples = append(t.examples, rawExample{Description: ex.Description, Input: in, Output: out})
	}
	return errors.Join(errs...)
}

// Call decodes args over the defaults, validates them, runs the handler and
// words the outcome. It never panics.
func (t *typed[P, R]) Call(ctx context.Context, inv *Invocation, args json.RawMessage) Outcome {
	p := new(P)
	if t.copyDefaults {
		*p = deepcopy.Of(t.defaults)
	} else {
		*p = t.defaults
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = emptyObject
	}
	if err := serde.DecodeInto(args, p); err != nil {
		return failure(&ValidationError{Tool: t.name, Err: err}, nil)
	}
	params := *p
	return t.run(ctx, inv, params)
}

var emptyObject = json.RawMessage(`{}`)

// run calls the handler with validated params and turns what it returns
// (or its panic) into an Outcome.
func (t *typed[P, R]) run(ctx context.Context, inv *Invocation, params P) (out Outcome) {
	out.Params = params
	defer func() {
		if v := recover(); v != nil {
			out = failure(&ExecutionError{Tool: t.name, Err: &PanicError{Value: v, Stack: debug.Stack()}}, params)
		}
	}()
	if err := ctx.Err(); err != nil {
		return failure(&ExecutionError{Tool: t.name, Err: err}, params)
	}
	res, err := t.handler(ctx, inv.ready(), params)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			// Checks only the handler can make (against the session's
			// state) fail the call as invalid arguments, not as a crash.
			if ve.Tool == "" {
				ve = &ValidationError{Tool: t.name, Err: ve.Err}
			}
			return failure(ve, params)
		}
		return failure(&ExecutionError{Tool: t.name, Err: err}, params)
	}
	var value any = res.Value // boxed once, for the Outcome and the JSON
	text, js, err := t.text(&res, value)
	if err != nil {
		return failure(&ExecutionError{Tool: t.name, Err: err}, params)
	}
	out.Text, out.Success, out.Value, out.ValueJSON, out.Events = text, res.Success, value, js, res.Events
	return out
}

// text is what the model sees of res: the message, then a blank line and
// the compact JSON of the value (res.Value, boxed), unless the value is
// excluded or zero.
func (t *typed[P, R]) text(res *Result[R], value any) (string, json.RawMessage, error) {
	if reflect.ValueOf(&res.Value).Elem().IsZero() {
		return res.Message, nil, nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return "", nil, fmt.Errorf("encoding the result value as JSON: %w", err)
	}
	if t.excludeValue {
		return res.Message, b, nil
	}
	if res.Message == "" {
		return string(b), b, nil
	}
	return res.Message + "\n\n" + string(b), b, nil
}

// failure is the Outcome of a call that failed with err.
func failure(err error, params any) Outcome {
	return Outcome{Text: err.Error(), Params: params, Err: err}
}
