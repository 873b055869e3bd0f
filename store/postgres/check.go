package postgres

import (
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/internal/rules"
)

// A backend refuses what the reference refuses, and says so the same way.

func checkHeader(h store.Header) error { return rules.Header(h.ID, h.Parent, h.ForkSeq, h.Tags) }

func checkBatch(id string, b store.Batch) error {
	return rules.Batch(id, b.Seq, len(b.Events), func(i int) string { return b.Events[i].Type })
}

func conflict(id string, last, seq uint64) error { return rules.Conflict(id, last, seq) }

func notABoundary(id string, seq uint64) error { return rules.NotABoundary(id, seq) }
