package vfs_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestStableNamesInSnapshotJSON(t *testing.T) {
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[vfs.FileDeleted](reg, "myapp.Deleted"))
	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: "a.md", Content: "a", Version: 1}))

	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"slice_type":"offshoot.vfs.Table"`)
	assert.Equal(t, "myapp.Deleted", reg.Name(reflect.TypeFor[vfs.FileDeleted]()), "a program's own name wins")
	_, ok := reg.Lookup("offshoot.vfs.Table")
	assert.True(t, ok, "installing the reducers names their types in the session's registry")

	// A session on the default registry names them there when it installs
	// them, not when the package is imported.
	plain, err := session.New()
	require.NoError(t, err)
	defer plain.Close()
	require.NoError(t, plain.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	_, ok = serde.DefaultRegistry.Lookup("offshoot.vfs.Table")
	assert.True(t, ok)
	sessiontest.RoundTrip(t, s, reg)
	assert.Error(t, vfs.Reducers(vfs.Table{}).Name(reg), "explicit calls report the conflict")
}
