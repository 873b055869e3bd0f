package agents_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
)

// fakeModel is a model known by its name.
type fakeModel struct{ name string }

func (f *fakeModel) Generate(context.Context, *model.Request) (*model.Response, error) {
	return &model.Response{Model: f.name}, nil
}

var (
	mainModel   = &fakeModel{"main"}
	lightModel  = &fakeModel{"light"}
	coderModel  = &fakeModel{"coder"}
	parentModel = &fakeModel{"parent"}
)

func router(t testing.TB, aliases map[string]string) *model.Router {
	t.Helper()
	r, err := model.NewStaticRouter(map[string]model.Model{"main": mainModel, "light": lightModel, "coder": coderModel}, aliases)
	require.NoError(t, err)
	return r
}

// Model precedence: the call's model, then the definition's, then the
// caller's; inherit passes the choice on; names resolve through the router,
// and the model is reported by the router's name for it (an alias by the
// model it leads to).
func TestResolveModel(t *testing.T) {
	r := router(t, map[string]string{"fast": "light"})
	tests := []struct {
		name       string
		call, def  string
		parent     model.Model
		parentName string
		want       *fakeModel
		wantName   string
	}{
		{name: "the call's model wins", call: "light", def: "main", parent: parentModel, parentName: "p", want: lightModel, wantName: "light"},
		{name: "the definition's model next", def: "coder", parent: parentModel, parentName: "p", want: coderModel, wantName: "coder"},
		{name: "the caller's model last", parent: parentModel, parentName: "p", want: parentModel, wantName: "p"},
		{name: "inherit in the call passes on", call: "inherit", def: "light", parent: parentModel, want: lightModel, wantName: "light"},
		{name: "inherit in the definition passes on", def: "inherit", parent: parentModel, parentName: "p", want: parentModel, wantName: "p"},
		{name: "names are case-insensitive", call: " LIGHT ", parent: parentModel, want: lightModel, wantName: "light"},
		{name: "configured alias", def: "fast", parent: parentModel, want: lightModel, wantName: "light"},
		{name: "sonnet means main", def: "sonnet", parent: parentModel, want: mainModel, wantName: "main"},
		{name: "opus means main", call: "opus", parent: parentModel, want: mainModel, wantName: "main"},
		{name: "haiku means light", def: "haiku", parent: parentModel, want: lightModel, wantName: "light"},
		{name: "a full sonnet id maps by family", def: "claude-sonnet-4-20250514", parent: parentModel, want: mainModel, wantName: "main"},
		{name: "a full haiku id maps by family", def: "claude-3-5-haiku-20241022", parent: parentModel, want: lightModel, wantName: "light"},
		{name: "a full id in the call too", call: "claude-opus-4-1", parent: parentModel, want: mainModel, wantName: "main"},
		{name: "an unknown definition model passes on", def: "gpt-4o", parent: parentModel, parentName: "p", want: parentModel, wantName: "p"},
		{name: "no caller model: the caller's name", parentName: "coder", want: coderModel, wantName: "coder"},
		{name: "no caller model nor name: main", want: mainModel, wantName: "main"},
		{name: "no caller model, unknown name: main", parentName: "gpt-9", want: mainModel, wantName: "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, name, err := agents.Definition{Model: tt.def}.ResolveModel(r, tt.call, tt.parent, tt.parentName)
			require.NoError(t, err)
			assert.Same(t, tt.want, m)
			assert.Equal(t, tt.wantName, name)
		})
	}
}

// A router that configures the Claude names decides what they mean.
func TestResolveModelConfiguredAliases(t *testing.T) {
	r := router(t, map[string]string{"haiku": "coder", "sonnet": "light"})
	for _, tt := range []struct {
		def  string
		want *fakeModel
	}{
		{"haiku", coderModel}, {"claude-3-5-haiku-20241022", coderModel}, {"sonnet", lightModel}, {"opus", mainModel},
	} {
		m, name, err := agents.Definition{Model: tt.def}.ResolveModel(r, "", parentModel, "p")
		require.NoError(t, err)
		assert.Same(t, tt.want, m, tt.def)
		assert.Equal(t, tt.want.name, name, tt.def)
	}

	// A router that has a model of its own called haiku reports it so.
	haiku := &fakeModel{"haiku"}
	r, err := model.NewStaticRouter(map[string]model.Model{"main": mainModel, "light": lightModel, "haiku": haiku}, nil)
	require.NoError(t, err)
	m, name, err := agents.Definition{Model: "claude-3-5-haiku-20241022"}.ResolveModel(r, "", parentModel, "p")
	require.NoError(t, err)
	assert.Same(t, haiku, m)
	assert.Equal(t, "haiku", name)
}

func TestResolveModelErrors(t *testing.T) {
	r := router(t, nil)
	_, _, err := agents.Definition{}.ResolveModel(r, "gpt-4o", parentModel, "p")
	require.ErrorIs(t, err, model.ErrUnknownModel)
	assert.Contains(t, err.Error(), `"gpt-4o"`)

	_, _, err = agents.Definition{}.ResolveModel(nil, "light", parentModel, "p")
	assert.EqualError(t, err, "agents: a model name was asked for but no model router is configured; give ResolveModel a *model.Router")

	m, name, err := agents.Definition{Model: "light"}.ResolveModel(nil, "", parentModel, "p")
	require.NoError(t, err, "without a router the definition's model passes on")
	assert.Same(t, parentModel, m)
	assert.Equal(t, "p", name)

	_, _, err = agents.Definition{}.ResolveModel(nil, "", nil, "")
	assert.EqualError(t, err, "agents: no model to run the agent with; give ResolveModel the caller's model or a *model.Router")
}

// Loading checks model names against the router when one is given.
func TestLoadChecksModelsAgainstRouter(t *testing.T) {
	project := tree(t, map[string]string{
		".claude/agents/a.md": agentFile("a", "A.", "x", "model: coder"),
		".claude/agents/b.md": agentFile("b", "B.", "x", "model: claude-sonnet-4-5"),
		".claude/agents/c.md": agentFile("c", "C.", "x", "model: gpt-4o"),
	})
	r := agents.Load(agents.Options{ProjectDir: project, Router: router(t, map[string]string{"fast": "light"})})
	require.Empty(t, r.Errors())
	assert.Equal(t, []string{filepath.Join(project, ".claude", "agents", "c.md") + ":4: model \"gpt-4o\" is not configured (known: coder, fast, haiku, light, main, opus, sonnet, or inherit); the agent uses its caller's model"},
		messages(r.Warnings()))

	r = agents.Load(agents.Options{ProjectDir: project})
	assert.Len(t, r.Warnings(), 2, "without a router, coder is unknown too")
}
