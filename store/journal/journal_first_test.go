package journal_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// failingAppends is a store whose appends fail, as a file with damaged
// pages does.
type failingAppends struct{ store.Store }

func (failingAppends) Append(context.Context, string, store.Batch) error {
	return errors.New("database disk image is malformed")
}

// A session whose first batch cannot be stored leaves nothing behind: no
// header of a session without a log.
func TestAFailedFirstCommitStoresNoHeader(t *testing.T) {
	st := failingAppends{store.NewMemory()}
	j := journal.New(st, journal.Options{})
	defer func() { require.NoError(t, j.Close()) }()
	s, err := session.New(session.WithID("first"), session.WithRegistry(serde.NewRegistry()), session.WithJournal(j))
	require.NoError(t, err)
	defer s.Close()
	err = s.Install(context.Background(), bank())
	require.ErrorContains(t, err, "malformed")

	_, err = st.Header(context.Background(), "first")
	require.ErrorIs(t, err, store.ErrNotFound, "the header stored for the batch was removed with it")
	hs, err := st.List(context.Background(), store.Query{})
	require.NoError(t, err)
	assert.Empty(t, hs)
}
