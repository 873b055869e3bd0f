package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestNewRejectsBadConstruction(t *testing.T) {
	h := listPath
	tests := []struct {
		name, tool, desc string
		opts             []tools.Option
		want             string
	}{
		{"empty name", "", "d", nil, `tool name "" must be 1 to 64 characters long`},
		{"long name", strings.Repeat("a", 65), "d", nil, "must be 1 to 64 characters long"},
		{"dot in name", "fs.ls", "d", nil, `tool name "fs.ls" may contain only ASCII letters, digits, '_' and '-'`},
		{"space in name", "l s", "d", nil, "may contain only ASCII letters"},
		{"unicode name", "lś", "d", nil, "may contain only ASCII letters"},
		{"empty description", "ls", "  \n\t", nil, `tool "ls" needs a description`},
		{"long description", "ls", strings.Repeat("é", 1025), nil, "is 1025 characters long; shorten it to at most 1024"},
		{"defaults of another type", "ls", "d", []tools.Option{tools.WithDefaults(lsResult{})}, "WithDefaults got a tools_test.lsResult, want the tool's parameter type tools_test.lsParams"},
		{"examples of another type", "ls", "d", []tools.Option{tools.WithExamples(tools.Example[lsResult, lsParams]{})}, "example 0 is a tools.Example[github.com/offshoot-dev/offshoot/tools_test.lsResult,github.com/offshoot-dev/offshoot/tools_test.lsParams], want a tools.Example[tools_test.lsParams, tools_test.lsResult]"},
		{"invalid example input", "ls", "d", []tools.Option{tools.WithExamples(tools.Example[lsParams, lsResult]{Description: "bad", Input: lsParams{Path: "x"}})}, `example 0 ("bad") has invalid input: limit: must be at least 1`},
		{"reducers without key", "ls", "d", []tools.Option{tools.WithReducers(session.Reducers{})}, "WithReducers needs a set with a key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := tools.New(tt.tool, tt.desc, h, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, tool)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewJoinsEveryProblem(t *testing.T) {
	_, err := tools.New[int, string]("bad name", "", nil)
	require.Error(t, err)
	for _, want := range []string{"may contain only", "needs a description", "needs a handler", "parameters must be a struct (the model sends a JSON object), got int"} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestNewAcceptsEdgeNamesAndTrimsDescription(t *testing.T) {
	name := strings.Repeat("A", 30) + "_-09" + strings.Repeat("z", 30)
	require.Len(t, name, 64)
	tool, err := tools.New(name, "\n  Lists files.  \n", listPath)
	require.NoError(t, err)
	assert.Equal(t, name, tool.Spec().Name)
	assert.Equal(t, "Lists files.", tool.Spec().Description)
	_, err = tools.New("x", strings.Repeat("é", 1024), listPath)
	assert.NoError(t, err, "1024 characters, not bytes, is the limit")
}

func TestCallValidationFailures(t *testing.T) {
	called := false
	tool := newLs(t, func(ctx context.Context, inv *tools.Invocation, p lsParams) (tools.Result[lsResult], error) {
		called = true
		return listPath(ctx, inv, p)
	})
	tests := []struct {
		args, text, path string
	}{
		{`{"path":"é"}`, "Tool validation failed: ls: path: must be ASCII", "path"},
		{`{"path":"src","limit":0}`, "Tool validation failed: ls: limit: must be at least 1", "limit"},
		{`{"limit":9000}`, "Tool validation failed: ls: path: is required; limit: must be at most 5000", "path"},
		{`{"path":"src","limit":"3"}`, "Tool validation failed: ls: limit: must be an integer, got a string", "limit"},
		{`{"path":"src","recursive":true}`, "Tool validation failed: ls: recursive: unknown field; allowed: path, limit", "recursive"},
		{`{"PATH":"src"}`, "Tool validation failed: ls: PATH: unknown field; allowed: path, limit", "PATH"},
		{`{"path":"src","Limit":3}`, "Tool validation failed: ls: Limit: unknown field; allowed: path, limit", "Limit"},
		{`{"path":"src","path":"docs"}`, "Tool validation failed: ls: path: appears twice", "path"},
		{`[]`, "Tool validation failed: ls: must be an object, got an array", ""},
		{`"x"`, "Tool validation failed: ls: must be an object, got a string", ""},
		{`null`, "Tool validation failed: ls: must be a JSON object, not null", ""},
		{`42`, "Tool validation failed: ls: must be an object, got a number", ""},
		{`{}`, "Tool validation failed: ls: path: is required", "path"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			out := tool.Call(context.Background(), nil, json.RawMessage(tt.args))
			assert.False(t, out.Success)
			assert.Equal(t, tt.text, out.Text)
			assert.Nil(t, out.Params)
			assert.Nil(t, out.Value)

			var verr *tools.ValidationError
			require.ErrorAs(t, out.Err, &verr)
			assert.Equal(t, "ls", verr.Tool)
			assert.Equal(t, tt.text, verr.Error())
			var serr *serde.ValidationError
			require.ErrorAs(t, out.Err, &serr, "errors.As finds serde's error through the tool's")
			assert.Equal(t, tt.path, serr.Path)
			var xerr *tools.ExecutionError
			assert.False(t, errors.As(out.Err, &xerr))
		})
	}
	assert.False(t, called, "the handler must not run on invalid arguments")
}

func TestCallMalformedJSONIsAValidationFailure(t *testing.T) {
	tool := newLs(t, listPath)
	for _, args := range []string{`{"path":`, `{"path":"a"} {}`, `{path: "a"}`} {
		out := tool.Call(context.Background(), nil, json.RawMessage(args))
		var verr *tools.ValidationError
		require.ErrorAs(t, out.Err, &verr, args)
		assert.True(t, strings.HasPrefix(out.Text, "Tool validation failed: ls: "), out.Text)
		assert.NotContains(t, out.Text, "serde:")
	}
}

func TestCallDecodesOverDefaults(t *testing.T) {
	tool := newLs(t, listPath)
	tests := []struct {
		args string
		want lsParams
	}{
		{`{"path":"src"}`, lsParams{Path: "src", Limit: 2000}},
		{`{"path":"src","limit":10}`, lsParams{Path: "src", Limit: 10}},
		{`{"limit":3,"path":"a"}`, lsParams{Path: "a", Limit: 3}},
	}
	for _, tt := range tests {
		out := tool.Call(context.Background(), nil, json.RawMessage(tt.args))
		require.NoError(t, out.Err)
		assert.Equal(t, tt.want, out.Params)
	}
}

func TestEmptyArgumentsMeanAnEmptyObject(t *testing.T) {
	tool, err := tools.New("now", "Tell the time.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.OK("", "noon"), nil
	})
	require.NoError(t, err)
	for _, args := range []string{"", "  \n", "{}"} {
		out := tool.Call(context.Background(), nil, json.RawMessage(args))
		require.NoError(t, out.Err)
		assert.Equal(t, `"noon"`, out.Text)
	}
}

// tagged has reference-typed defaults, which every call must get a fresh
// copy of.
type tagged struct {
	Tags  []string          `json:"tags,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
	Inner *struct {
		N []int `json:"n"`
	} `json:"inner,omitempty"`
}

func TestDefaultsAreDeepCopiedForEveryCall(t *testing.T) {
	defaults := tagged{Tags: []string{"a", "b"}, Attrs: map[string]string{"k": "v"}}
	defaults.Inner = &struct {
		N []int `json:"n"`
	}{N: []int{1}}
	tool, err := tools.New("tag", "Tag things.", func(_ context.Context, _ *tools.Invocation, p tagged) (tools.Result[tagged], error) {
		p.Tags[0] = "mutated" // a handler scribbling on its params must not reach the defaults
		return tools.OK("", p), nil
	}, tools.WithDefaults(defaults))
	require.NoError(t, err)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			out := tool.Call(context.Background(), nil, json.RawMessage(`{"attrs":{"x":"y"},"inner":{"n":[7]}}`))
			assert.NoError(t, out.Err)
		})
	}
	wg.Wait()
	out := tool.Call(context.Background(), nil, json.RawMessage(`{}`))
	require.NoError(t, out.Err)
	assert.Equal(t, `{"tags":["mutated","b"],"attrs":{"k":"v"},"inner":{"n":[1]}}`, out.Text)
	assert.Equal(t, []string{"a", "b"}, defaults.Tags)
	assert.Equal(t, map[string]string{"k": "v"}, defaults.Attrs)
}

func TestResultText(t *testing.T) {
	type value struct {
		N    int    `json:"n"`
		Note string `json:"note,omitempty"`
	}
	tests := []struct {
		name    string
		res     tools.Result[value]
		exclude bool
		text    string
		success bool
	}{
		{"message and value", tools.OK("done", value{N: 2}), false, "done\n\n{\"n\":2}", true},
		{"zero value is left out", tools.OK("done", value{}), false, "done", true},
		{"value only", tools.OK("", value{N: 1, Note: "x"}), false, `{"n":1,"note":"x"}`, true},
		{"excluded value", tools.OK("done", value{N: 2}), true, "done", true},
		{"failed result words itself", tools.Failed[value]("no such file: a.md; list the directory first"), false, "no such file: a.md; list the directory first", false},
		{"zero Result is a failure", tools.Result[value]{Message: "hm"}, false, "hm", false},
		{"failed with value", tools.Result[value]{Message: "partial", Value: value{N: 1}}, false, "partial\n\n{\"n\":1}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []tools.Option
			if tt.exclude {
				opts = append(opts, tools.ExcludeValue())
			}
			tool, err := tools.New("v", "Value.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[value], error) {
				return tt.res, nil
			}, opts...)
			require.NoError(t, err)
			out := tool.Call(context.Background(), nil, nil)
			assert.NoError(t, out.Err, "a failed Result is not an error")
			assert.Equal(t, tt.text, out.Text)
			assert.Equal(t, tt.success, out.Success)
			assert.Equal(t, tt.res.Value, out.Value)
		})
	}
}

func TestResultEvents(t *testing.T) {
	type noted struct{ Text string }
	tool, err := tools.New("note", "Take a note.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[struct{}], error) {
		return tools.OK("noted", struct{}{}).WithEvents(noted{"a"}, noted{"b"}), nil
	})
	require.NoError(t, err)
	out := tool.Call(context.Background(), nil, nil)
	assert.Equal(t, []any{noted{"a"}, noted{"b"}}, out.Events)
	assert.Equal(t, "noted", out.Text)
}

func TestExecutionFailures(t *testing.T) {
	boom := errors.New("disk on fire")
	tests := []struct {
		name    string
		handler tools.Handler[lsParams, lsResult]
		ctx     func() context.Context
		text    string
		cause   error
	}{
		{"error", func(context.Context, *tools.Invocation, lsParams) (tools.Result[lsResult], error) {
			return tools.OK("ignored", lsResult{}), boom
		}, context.Background, "Tool 'ls' execution failed: disk on fire", boom},
		{"wrapped error", func(context.Context, *tools.Invocation, lsParams) (tools.Result[lsResult], error) {
			return tools.Result[lsResult]{}, fmt.Errorf("reading src: %w", boom)
		}, context.Background, "Tool 'ls' execution failed: reading src: disk on fire", boom},
		{"panic", func(context.Context, *tools.Invocation, lsParams) (tools.Result[lsResult], error) {
			panic("index out of range")
		}, context.Background, "Tool 'ls' execution failed: panic: index out of range", nil},
		{"panic with error", func(context.Context, *tools.Invocation, lsParams) (tools.Result[lsResult], error) {
			panic(boom)
		}, context.Background, "Tool 'ls' execution failed: panic: disk on fire", boom},
		{"cancelled before the call", listPath, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, "Tool 'ls' execution failed: context canceled", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := newLs(t, tt.handler)
			var out tools.Outcome
			require.NotPanics(t, func() { out = tool.Call(tt.ctx(), nil, json.RawMessage(`{"path":"src"}`)) })
			assert.False(t, out.Success)
			assert.Equal(t, tt.text, out.Text)
			assert.Equal(t, lsParams{Path: "src", Limit: 2000}, out.Params, "the params are recorded")
			assert.Nil(t, out.Value)
			var xerr *tools.ExecutionError
			require.ErrorAs(t, out.Err, &xerr)
			assert.Equal(t, "ls", xerr.Tool)
			assert.Equal(t, tt.text, xerr.Error())
			if tt.cause != nil {
				assert.ErrorIs(t, out.Err, tt.cause)
			}
			var verr *tools.ValidationError
			assert.False(t, errors.As(out.Err, &verr))
			if strings.Contains(tt.name, "panic") {
				var perr *tools.PanicError
				require.ErrorAs(t, out.Err, &perr)
				assert.NotEmpty(t, perr.Stack)
			}
		})
	}
}

func TestUnencodableValueIsAnExecutionFailure(t *testing.T) {
	tool, err := tools.New("bad", "Bad value.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[json.RawMessage], error) {
		return tools.OK("x", json.RawMessage(`{not json`)), nil
	})
	require.NoError(t, err)
	out := tool.Call(context.Background(), nil, nil)
	var xerr *tools.ExecutionError
	require.ErrorAs(t, out.Err, &xerr)
	assert.True(t, strings.HasPrefix(out.Text, "Tool 'bad' execution failed: encoding the result value as JSON: "), out.Text)
}

func TestInvocationReachesTheHandler(t *testing.T) {
	var got *tools.Invocation
	tool := newLs(t, func(ctx context.Context, inv *tools.Invocation, p lsParams) (tools.Result[lsResult], error) {
		got = inv
		inv.Logger.Info("listing", "path", p.Path) // never nil
		return listPath(ctx, inv, p)
	})
	out := tool.Call(context.Background(), nil, json.RawMessage(`{"path":"a"}`))
	require.NoError(t, out.Err)
	require.NotNil(t, got)
	assert.NotNil(t, got.Logger)

	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	ts, err := tools.NewToolset(tool)
	require.NoError(t, err)
	inv := &tools.Invocation{
		Session: s, Bus: s.Bus(), CallID: "call_1", PromptNS: "docs", PromptKey: "review",
		Tools: ts, ModelName: "light",
	}
	out = tool.Call(context.Background(), inv, json.RawMessage(`{"path":"a"}`))
	require.NoError(t, out.Err)
	assert.Equal(t, "call_1", got.CallID)
	assert.Same(t, s, got.Session)
	assert.Equal(t, []string{"ls"}, got.Tools.Names())
	assert.Nil(t, inv.Logger, "Call does not change the caller's Invocation")
	assert.NotNil(t, got.Logger)
}

func TestConcurrentSafeOption(t *testing.T) {
	plain := newLs(t, listPath)
	safe := newLs(t, listPath, tools.ConcurrentSafe())
	assert.False(t, plain.Spec().ConcurrentSafe)
	assert.True(t, safe.Spec().ConcurrentSafe)
}

func TestExamplesAreExposedAsJSON(t *testing.T) {
	tool := newLs(t, listPath,
		tools.WithExamples(tools.Example[lsParams, lsResult]{
			Description: "list the sources",
			Input:       lsParams{Path: "src", Limit: 10},
			Output:      lsResult{Entries: []string{"src/main.go"}},
		}),
		tools.WithExamples(tools.Example[lsParams, lsResult]{Description: "second", Input: lsParams{Path: ".", Limit: 1}}),
	)
	ex := tool.Spec().Examples
	require.Len(t, ex, 2)
	assert.Equal(t, "list the sources", ex[0].Description)
	assert.JSONEq(t, `{"path":"src","limit":10}`, string(ex[0].Input))
	assert.JSONEq(t, `{"entries":["src/main.go"]}`, string(ex[0].Output))
	assert.JSONEq(t, `{"entries":null}`, string(ex[1].Output))
}

// A tool declares its reducers as data; a toolset installs the sets of
// its tools in one write, each key once.
func TestReducers(t *testing.T) {
	type added struct{ N int }
	set := session.Reducers{Key: "counter", Rules: []session.Rule{session.On(session.AppendAll[added])}}
	a := newLs(t, listPath, tools.WithReducers(set))
	b, err := tools.New("ls2", "Also list.", listPath, tools.WithReducers(set))
	require.NoError(t, err)
	assert.Equal(t, "counter", a.Spec().Reducers.Key)
	assert.Empty(t, newLs(t, listPath).Spec().Reducers.Key, "a tool without WithReducers declares none")

	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	ts, err := tools.NewToolset(a, b)
	require.NoError(t, err)
	require.Len(t, ts.Reducers(), 1, "one key, one set")
	require.NoError(t, ts.Install(context.Background(), s))
	require.NoError(t, ts.Install(context.Background(), s))
	assert.True(t, s.Installed("counter"))

	require.NoError(t, s.Dispatch(context.Background(), added{1}))
	assert.Equal(t, 1, session.Len[added](s), "the reducer is registered once")

	require.NoError(t, tools.Toolset{}.Install(context.Background(), s))
	failing := newLs(t, listPath, tools.WithReducers(session.Reducers{Key: "failing", Rules: []session.Rule{session.On[added, added](nil)}}))
	fs, err := tools.NewToolset(failing)
	require.NoError(t, err)
	err = fs.Install(context.Background(), s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs a reducer")
	assert.False(t, s.Installed("failing"))
	assert.Error(t, fs.Install(context.Background(), nil))
}

func TestHandlerValidationErrorIsAValidationFailure(t *testing.T) {
	type P struct {
		ID string `json:"id"`
	}
	tool, err := tools.New("lookup", "Looks an id up.", func(_ context.Context, _ *tools.Invocation, p P) (tools.Result[string], error) {
		return tools.Result[string]{}, &tools.ValidationError{Err: &serde.ValidationError{Path: "id", Reason: "names no step; known: S001"}}
	})
	require.NoError(t, err)
	out := tool.Call(context.Background(), nil, json.RawMessage(`{"id":"S9"}`))
	assert.False(t, out.Success)
	assert.Equal(t, "Tool validation failed: lookup: id: names no step; known: S001", out.Text)
	var ve *tools.ValidationError
	require.ErrorAs(t, out.Err, &ve)
	assert.Equal(t, "lookup", ve.Tool)
	var se *serde.ValidationError
	require.ErrorAs(t, out.Err, &se)
	assert.Equal(t, P{ID: "S9"}, out.Params)
}

// A Spec is the tool's own data, the same every time: no copy per call.
func TestSpecLendsTheToolsOwnBytes(t *testing.T) {
	tool := newLs(t, listPath)
	a, b := tool.Spec().Params, tool.Spec().Params
	assert.Same(t, &a[0], &b[0], "no copy")
}
