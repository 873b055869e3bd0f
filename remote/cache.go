package remote

import (
	"container/list"
	"sync"

	"github.com/offshoot-dev/offshoot/session"
)

// snapshotCache keeps the snapshots a worker loaded, decoded (a snapshot
// is immutable), by hash, up to a number of their bytes, dropping the
// least recently used: a worker running siblings, or children of one
// parent state, reads and decodes the state once. The names are content
// hashes, so an entry is never stale.
type snapshotCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *cacheEntry, most recent first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	name string
	snap session.Snapshot
	size int64
}

func newSnapshotCache(max int64) *snapshotCache {
	return &snapshotCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *snapshotCache) get(name string) (session.Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[name]
	if !ok {
		return session.Snapshot{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).snap, true
}

// put keeps snap, decoded from size bytes.
func (c *snapshotCache) put(name string, snap session.Snapshot, size int64) {
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[name]; ok {
		return
	}
	c.byKey[name] = c.order.PushFront(&cacheEntry{name, snap, size})
	c.size += size
	for c.size > c.max {
		last := c.order.Back()
		ent := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.byKey, ent.name)
		c.size -= ent.size
	}
}
