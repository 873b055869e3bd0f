package prompt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

type lsParams struct {
	Path string `json:"path"`
}

type lsState struct{ tools.State }

func newLs(t *testing.T, opts ...tools.Option) tools.Tool {
	t.Helper()
	tool, err := tools.New("ls", "List the entries of a directory.", func(_ context.Context, _ *tools.Invocation, p lsParams) (tools.Result[[]string], error) {
		return tools.OK("listed", []string{p.Path}), nil
	}, opts...)
	require.NoError(t, err)
	return tool
}

// wrapper is a tool wrapped the way net/http middleware wraps a handler.
type wrapper struct{ tools.Tool }

// An override's description replaces the tool's, and nothing else: name,
// schemas (the very bytes), concurrency, state, reducers and the call
// stay.
func TestRedescribeKeepsEverythingElse(t *testing.T) {
	set := session.Reducers{Key: "k", Rules: []session.Rule{session.Keep[lsParams]()}}
	st := lsState{}
	orig := newLs(t, tools.ConcurrentSafe(), tools.WithReducers(set), tools.WithState(st))

	re, err := redescribe(wrapper{wrapper{orig}}, "  List a directory, newest first. ")
	require.NoError(t, err)
	assert.Equal(t, "List a directory, newest first.", re.Spec().Description)
	assert.Equal(t, "List the entries of a directory.", orig.Spec().Description)
	assert.Equal(t, orig.Spec().Name, re.Spec().Name)
	a, c := orig.Spec().Params, re.Spec().Params
	assert.Same(t, &a[0], &c[0], "the tool's schema, not a copy")
	assert.True(t, re.Spec().ConcurrentSafe)
	assert.Equal(t, tools.State(st), re.Spec().State)
	assert.Equal(t, "k", re.Spec().Reducers.Key, "the reducers are kept")
	out := re.Call(context.Background(), nil, []byte(`{"path":"x"}`))
	assert.True(t, out.Success)

	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	ts, err := tools.NewToolset(re)
	require.NoError(t, err)
	require.NoError(t, ts.Install(context.Background(), s))
	assert.True(t, s.Installed("k"))

	again, err := redescribe(re, "Third.")
	require.NoError(t, err)
	assert.Equal(t, "Third.", again.Spec().Description)
	assert.Equal(t, "k", again.Spec().Reducers.Key)
	_, rewrapped := again.(*redescribed).Tool.(*redescribed)
	assert.False(t, rewrapped, "an override of an override wraps the tool once")

	_, err = redescribe(orig, " ")
	assert.EqualError(t, err, `tools: tool "ls" needs a description telling the model what it does`)
	_, err = redescribe(nil, "x")
	assert.Error(t, err)
}
