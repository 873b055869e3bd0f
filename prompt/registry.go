package prompt

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
)

// Registry holds prompts by (namespace, key), for lookups by name (such as
// the dispatch_subagent tool's). Prompts can be disabled and enabled; a
// disabled prompt stays registered but is not found by LookupEnabled.
// The zero Registry is empty and ready to use; it is safe for concurrent
// use and must not be copied after first use.
type Registry struct {
	mu      sync.RWMutex
	entries map[regKey]*regEntry
}

type regKey struct{ ns, key string }

type regEntry struct {
	p        *Prompt
	disabled bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return new(Registry) }

// Register adds p, enabled. A prompt already registered under p's (ns, key)
// is an error.
func (r *Registry) Register(p *Prompt) error {
	if p == nil {
		return errors.New("prompt: Register got a nil prompt; check the error prompt.New returned")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := regKey{p.ns, p.key}
	if _, dup := r.entries[k]; dup {
		return fmt.Errorf("prompt: a prompt %q is already registered; give the new one another key or namespace", p.ns+"/"+p.key)
	}
	if r.entries == nil {
		r.entries = map[regKey]*regEntry{}
	}
	r.entries[k] = &regEntry{p: p}
	return nil
}

// Lookup returns the prompt registered under (ns, key), enabled or not. An
// unknown prompt is an error matching ErrNotFound that lists what the
// namespace holds.
func (r *Registry) Lookup(ns, key string) (*Prompt, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[regKey{ns, key}]
	if !ok {
		return nil, r.notFound(ns, key)
	}
	return e.p, nil
}

// LookupEnabled is Lookup for prompts that are enabled: a disabled prompt
// is an error matching ErrDisabled.
func (r *Registry) LookupEnabled(ns, key string) (*Prompt, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[regKey{ns, key}]
	switch {
	case !ok:
		return nil, r.notFound(ns, key)
	case e.disabled:
		return nil, &lookupError{NS: ns, Key: key, Disabled: true}
	}
	return e.p, nil
}

// Enable makes the prompt under (ns, key) visible to LookupEnabled again.
func (r *Registry) Enable(ns, key string) error { return r.setDisabled(ns, key, false) }

// Disable hides the prompt under (ns, key) from LookupEnabled.
func (r *Registry) Disable(ns, key string) error { return r.setDisabled(ns, key, true) }

func (r *Registry) setDisabled(ns, key string, disabled bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[regKey{ns, key}]
	if !ok {
		return r.notFound(ns, key)
	}
	e.disabled = disabled
	return nil
}

// Enabled reports whether a prompt is registered under (ns, key) and
// enabled.
func (r *Registry) Enabled(ns, key string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[regKey{ns, key}]
	return ok && !e.disabled
}

// All yields the registered prompts, enabled or not, ordered by namespace
// then key. Each iteration works on a snapshot taken when it starts, so
// the registry may change meanwhile.
func (r *Registry) All() iter.Seq[*Prompt] {
	return func(yield func(*Prompt) bool) {
		r.mu.RLock()
		list := make([]*Prompt, 0, len(r.entries))
		for _, e := range r.entries {
			list = append(list, e.p)
		}
		r.mu.RUnlock()
		slices.SortFunc(list, func(a, b *Prompt) int {
			return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.key, b.key))
		})
		for _, p := range list {
			if !yield(p) {
				return
			}
		}
	}
}

// notFound builds the error for an unknown (ns, key); r.mu must be held.
func (r *Registry) notFound(ns, key string) *lookupError {
	e := &lookupError{NS: ns, Key: key}
	for k := range r.entries {
		if k.ns == ns {
			e.Registered = append(e.Registered, k.key)
		}
	}
	slices.Sort(e.Registered)
	return e
}
