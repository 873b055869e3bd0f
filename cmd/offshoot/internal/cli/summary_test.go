package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

func TestSummarize(t *testing.T) {
	for _, tt := range []struct {
		name string
		tags map[string]string
		want Summary
	}{
		{name: "none", want: Summary{}},
		{name: "a chat", tags: map[string]string{kindTag: "chat", questionTag: "Why?", turnsTag: "3", tokensTag: "4500"},
			want: Summary{Kind: "chat", Question: "Why?", Turns: 3, Tokens: 4500}},
		{name: "counts a hostile store wrote", tags: map[string]string{turnsTag: "-4", tokensTag: "lots"}, want: Summary{}},
		{name: "a question on many lines", tags: map[string]string{questionTag: "Why\n\tnot\r\n  now?"}, want: Summary{Question: "Why not now?"}},
		{name: "a long question", tags: map[string]string{questionTag: strings.Repeat("é", 500)},
			want: Summary{Question: strings.Repeat("é", maxQuestion-1) + "…"}},
		{name: "a subagent's, which came with its parent's tags",
			tags: map[string]string{kindTag: "chat", questionTag: "Why?", turnsTag: "3", agentTag: "a1", descriptionTag: "Review the notes"},
			want: Summary{Kind: "agent", Question: "Review the notes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Summarize(store.Header{ID: "s", Tags: tt.tags}))
		})
	}
}

func TestNoteTurn(t *testing.T) {
	ctx := context.Background()
	var errOut bytes.Buffer
	e := &Env{Stderr: &errOut, owner: "0123456789abcdef0123456789abcdef"}
	st := store.NewMemory()
	e.Stored = &Stored{Store: st, Where: "memory"}
	require.NoError(t, st.Create(ctx, store.Header{ID: "s", Tags: e.sessionTags("chat", "")}))

	e.NoteTurn(ctx, "s", "", 10) // an empty line answered: no question yet
	e.NoteTurn(ctx, "s", "What is\nin the notes?", 100)
	e.NoteTurn(ctx, "s", "And then?", 1000)
	h, err := st.Header(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, Summary{Kind: "chat", Question: "What is in the notes?", Turns: 3, Tokens: 1110}, Summarize(h))
	assert.Equal(t, e.owner, h.Tags[OwnerTag], "the owner's token is kept")
	assert.Equal(t, map[string]string{OwnerTag: e.owner, kindTag: "chat", questionTag: "What is in the notes?"}, ForkTags(h.Tags),
		"a fork counts its own turns")
	assert.Empty(t, errOut.String())

	e.NoteTurn(ctx, "missing", "Why?", 1)
	assert.Contains(t, errOut.String(), "cannot note the question in session missing of memory")

	e.Stored = nil
	e.NoteTurn(ctx, "s", "Why?", 1) // --no-store: nothing to note
}
