package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// SQLite copies the write-ahead log back into the database file (a WAL
// checkpoint, nothing to do with a session's checkpoints) when the log
// has grown past a number of pages, on the connection whose commit
// crossed it: that commit then waits for the copy and two fsyncs, a
// millisecond or more where an append takes tens of microseconds. So the
// writer connection leaves the log to walBackstopPages, and a goroutine
// of the store checkpoints it, passively (never waiting for a lock, never
// making a writer or a reader wait), after every walKickEvery writes.
// Should that goroutine fall behind, the writer still checkpoints at the
// backstop, so that the log stays bounded.
const (
	walKickEvery     = 128
	walBackstopPages = 4000
)

// walCheckpointer checkpoints a store's write-ahead log in the
// background, on a connection of its own.
type walCheckpointer struct {
	db     *sql.DB
	writes atomic.Uint64
	runs   atomic.Uint64 // checkpoints done
	kick   chan struct{} // buffered: a kick while one runs is kept, not queued twice
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// newWALCheckpointer starts checkpointing the log of the database db
// opens (one connection).
func newWALCheckpointer(db *sql.DB) *walCheckpointer {
	db.SetMaxOpenConns(1)
	c := &walCheckpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *walCheckpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
			// A passive checkpoint that fails or does part of the work
			// (a reader holds old frames) is done again at the next
			// kick; the writer's backstop bounds the log meanwhile.
			_, _ = c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
			c.runs.Add(1)
		}
	}
}

// wrote counts a committed write, and kicks the goroutine after every
// walKickEvery of them. It never waits.
func (c *walCheckpointer) wrote() {
	if c.writes.Add(1)%walKickEvery != 0 {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// close stops the goroutine, once it has finished a checkpoint it was
// doing, and closes its connection.
func (c *walCheckpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return c.db.Close()
}
