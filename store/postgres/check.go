package postgres

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/store"
)

// A backend refuses what the reference refuses (store.CheckHeader,
// store.CheckBatch), and returns the same errors.

func checkHeader(h store.Header) error { return store.CheckHeader(h) }

func checkBatch(id string, b store.Batch) error { return store.CheckBatch(id, b) }

func conflict(id string, last, seq uint64) error {
	return fmt.Errorf("%w: session %s ends at seq %d, and the batch starts at %d", store.ErrConflict, id, last, seq)
}

func notABoundary(id string, seq uint64) error {
	return fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, seq)
}
