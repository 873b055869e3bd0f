package prompt_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
)

func simple(t testing.TB, ns, key string) *prompt.Prompt {
	t.Helper()
	return mustNew(t, ns, key, prompt.Markdown[prompt.NoParams]("Role", ns+"/"+key))
}

func TestRegistry(t *testing.T) {
	var reg prompt.Registry // the zero value is ready
	review, plan, other := simple(t, "docs", "review"), simple(t, "docs", "plan"), simple(t, "code", "fix")
	for _, p := range []*prompt.Prompt{review, plan, other} {
		require.NoError(t, reg.Register(p))
	}
	assert.EqualError(t, reg.Register(simple(t, "docs", "review")), `prompt: a prompt "docs/review" is already registered; give the new one another key or namespace`)
	assert.Error(t, reg.Register(nil))

	got, err := reg.Lookup("docs", "review")
	require.NoError(t, err)
	assert.Same(t, review, got)

	_, err = reg.Lookup("docs", "summary")
	var le *prompt.LookupError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, prompt.ErrNotFound)
	assert.Equal(t, []string{"plan", "review"}, le.Registered)
	assert.EqualError(t, err, `prompt: no prompt "docs/summary" is registered; namespace "docs" has: plan, review`)
	_, err = reg.Lookup("ops", "deploy")
	assert.EqualError(t, err, `prompt: no prompt "ops/deploy" is registered; namespace "ops" has none`)

	require.NoError(t, reg.Disable("docs", "review"))
	assert.False(t, reg.Enabled("docs", "review"))
	_, err = reg.LookupEnabled("docs", "review")
	require.ErrorAs(t, err, &le)
	assert.True(t, le.Disabled)
	assert.ErrorIs(t, err, prompt.ErrDisabled)
	assert.EqualError(t, err, `prompt: prompt "docs/review" is disabled; enable it with Registry.Enable or pick another`)
	got, err = reg.Lookup("docs", "review")
	require.NoError(t, err, "Lookup finds disabled prompts")
	assert.Same(t, review, got)

	require.NoError(t, reg.Enable("docs", "review"))
	got, err = reg.LookupEnabled("docs", "review")
	require.NoError(t, err)
	assert.Same(t, review, got)
	_, err = reg.LookupEnabled("docs", "nope")
	assert.ErrorIs(t, err, prompt.ErrNotFound)
	assert.ErrorIs(t, reg.Disable("docs", "nope"), prompt.ErrNotFound)
	assert.ErrorIs(t, reg.Enable("docs", "nope"), prompt.ErrNotFound)

	var order []string
	for p := range reg.All() {
		order = append(order, p.NS()+"/"+p.Key())
	}
	assert.Equal(t, []string{"code/fix", "docs/plan", "docs/review"}, order)
	for p := range reg.All() {
		_ = p
		break // stopping early is fine
	}
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	reg := prompt.NewRegistry()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := fmt.Sprintf("p%d", i)
			assert.NoError(t, reg.Register(simple(t, "ns", key)))
			_, _ = reg.Lookup("ns", key)
			_ = reg.Disable("ns", key)
			_, _ = reg.LookupEnabled("ns", key)
			_ = reg.Enable("ns", key)
			for range reg.All() {
			}
		})
	}
	wg.Wait()
	var keys []string
	for p := range reg.All() {
		keys = append(keys, p.Key())
	}
	assert.True(t, slices.IsSorted(keys))
	assert.Len(t, keys, 8)
}
