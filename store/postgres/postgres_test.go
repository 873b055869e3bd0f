package postgres

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	dsn := serverDSN(t)
	open := func(t *testing.T) store.Store {
		st, err := Open(context.Background(), withSchema(dsn, testSchema(t, dsn)))
		require.NoError(t, err)
		return st
	}
	corrupt := func(t *testing.T, st store.Store, id string, seq uint64) {
		exec(t, st, `UPDATE S.batches SET events = 'garbage'::bytea WHERE session = (SELECT key FROM S.sessions WHERE id = $1) AND seq = $2`, id, int64(seq))
	}
	storetest.Run(t, open, storetest.Options{Corrupt: corrupt})
}
