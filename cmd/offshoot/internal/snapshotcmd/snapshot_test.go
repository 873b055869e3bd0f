package snapshotcmd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestRegistryKnowsOffshootTypes(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	for _, name := range []string{"offshoot.runner.ConversationMessage", "offshoot.vfs.Table", "offshoot.planning.Plan"} {
		_, ok := reg.Lookup(name)
		assert.True(t, ok, name)
	}

	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, vfs.Install(s))
	require.NoError(t, planning.Install(s))
	require.NoError(t, s.Dispatch(context.Background(), runner.Inbound{Source: "test", Text: "hello"}))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	assert.Empty(t, unknownTypes(data, reg))
}

func TestUnknownTypes(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	tests := []struct {
		data string
		want []string
	}{
		{`{"slices": [{"slice_type": "offshoot.vfs.Table", "items": []}]}`, nil},
		{`{"slices": [{"slice_type": "b.T", "item_type": "a.T", "items": []}, {"slice_type": "b.T"}]}`, []string{"a.T", "b.T"}},
		{`{"slices": [{"slice_type": 5}]}`, nil},
		{`not json`, nil},
		{`{"slices": {"slice_type": "x"}}`, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, unknownTypes([]byte(tt.data), reg), tt.data)
	}
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b c", oneLine("a\n\n b\tc ", 10))
	assert.Equal(t, "abc…", oneLine("abcdef", 3))
	assert.Equal(t, "ééé…", oneLine("éééé", 3), "cut at characters, not bytes")
}

func TestSize(t *testing.T) {
	assert.Equal(t, "15 B", size(15))
	assert.Equal(t, "1.5 KiB", size(1536))
	assert.Equal(t, "2.0 MiB", size(2<<20))
}

func TestOneLineEscapes(t *testing.T) {
	assert.Equal(t, "x \uFFFD[2J y", oneLine("x\n\x1b[2J y", 20))
}
