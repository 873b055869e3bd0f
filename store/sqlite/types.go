package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/offshoot-dev/offshoot/store"
)

// typeCache holds the type names of the file's table types and their ids.
// A committed id names the same type forever (the store never changes or
// removes a row of types), so the cache never goes stale: it only misses,
// and then the table answers.
type typeCache struct {
	mu    sync.RWMutex
	ids   map[string]uint64
	names map[uint64]string
}

// lookup returns the ids of the events' types that the cache holds, and
// the names it does not.
func (c *typeCache) lookup(events []store.Event) (ids map[string]uint64, missing []string) {
	ids = make(map[string]uint64, 4)
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range events {
		if _, ok := ids[e.Type]; ok {
			continue
		}
		if id, ok := c.ids[e.Type]; ok {
			ids[e.Type] = id
		} else if !contains(missing, e.Type) {
			missing = append(missing, e.Type)
		}
	}
	return ids, missing
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// add caches committed ids.
func (c *typeCache) add(ids map[string]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids, c.names = map[string]uint64{}, map[uint64]string{}
	}
	for name, id := range ids {
		c.ids[name], c.names[id] = id, name
	}
}

// resolve finds or makes, in the write transaction tx, the ids of the
// missing type names, into ids. They may be cached once tx commits.
func resolveTypes(ctx context.Context, tx *sql.Tx, missing []string, ids map[string]uint64) error {
	for _, name := range missing {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM types WHERE name = ?", name).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, "INSERT INTO types (name) VALUES (?) RETURNING id", name).Scan(&id)
		}
		if err != nil {
			return fmt.Errorf("the id of event type %s: %w", name, err)
		}
		ids[name] = uint64(id)
	}
	return nil
}

// name returns the type name of id, from the cache or else from the table
// as the read transaction tx sees it (committed, so cached).
func (c *typeCache) name(ctx context.Context, tx *sql.Tx, id uint64) (string, error) {
	c.mu.RLock()
	name, ok := c.names[id]
	c.mu.RUnlock()
	if ok {
		return name, nil
	}
	if id == 0 || id > 1<<62 {
		return "", fmt.Errorf("its type id %d is not one the store gives", id)
	}
	err := tx.QueryRowContext(ctx, "SELECT name FROM types WHERE id = ?", int64(id)).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("its type id %d names no type", id)
	}
	if err != nil {
		return "", fmt.Errorf("reading the name of type %d: %w", id, err)
	}
	if name == "" {
		return "", fmt.Errorf("type %d has an empty name", id)
	}
	c.add(map[string]uint64{name: id})
	return name, nil
}
