package serde

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// Registry maps Go types to stable names and back, so that serialized data
// (session snapshots, cassettes) names its types in a way that survives
// refactors. A Registry is a value: create one with NewRegistry, or use
// DefaultRegistry for convenience. It is safe for concurrent use.
//
// A type is known under exactly one name. A name given with Register is
// explicit and fixed; a type first seen through Ensure gets its default name
// (see DefaultName), which an explicit Register may later replace.
type Registry struct {
	mu     sync.RWMutex
	byType map[reflect.Type]entry
	byName map[string]reflect.Type
}

type entry struct {
	name     string
	explicit bool
}

// DefaultRegistry is a process-wide registry for programs that do not need
// more than one. Libraries should accept a *Registry instead of using it.
var DefaultRegistry = NewRegistry()

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		byType: make(map[reflect.Type]entry),
		byName: make(map[string]reflect.Type),
	}
}

// Register gives T the stable name name in reg. Registering the same type
// under the same name again is a no-op. It fails when the name is empty, when
// the name already belongs to another type, or when T already has a different
// explicit name.
func Register[T any](reg *Registry, name string) error {
	return reg.RegisterType(reflect.TypeFor[T](), name)
}

// RegisterType is Register for a reflect.Type known only at run time.
func (r *Registry) RegisterType(t reflect.Type, name string) error {
	if t == nil {
		return fmt.Errorf("serde: cannot register a nil type under %q", name)
	}
	if name == "" {
		return fmt.Errorf("serde: cannot register %s under an empty name; pass a stable name such as \"myapp.Note\"", t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if other, ok := r.byName[name]; ok && other != t {
		return fmt.Errorf("serde: name %q is already registered for %s; choose another name for %s", name, other, t)
	}
	if e, ok := r.byType[t]; ok {
		if e.name == name {
			if !e.explicit {
				r.byType[t] = entry{name: name, explicit: true}
			}
			return nil
		}
		if e.explicit {
			return fmt.Errorf("serde: %s is already registered as %q; a type has one name", t, e.name)
		}
		// Replace the default name by the explicit one.
		delete(r.byName, e.name)
	}
	r.byType[t] = entry{name: name, explicit: true}
	r.byName[name] = t
	return nil
}

// Ensure returns the name of t, registering it under DefaultName(t) when t is
// not yet known. It fails only when that default name is already taken by
// another type (two types whose DefaultName collide, such as two instances of
// one generic type written the same way); register one of them explicitly.
func (r *Registry) Ensure(t reflect.Type) (string, error) {
	r.mu.RLock()
	e, ok := r.byType[t]
	r.mu.RUnlock()
	if ok {
		return e.name, nil
	}
	name := DefaultName(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byType[t]; ok {
		return e.name, nil
	}
	if other, ok := r.byName[name]; ok && other != t {
		return "", fmt.Errorf("serde: default name %q of %s is already used by %s; register one of them with serde.Register", name, t, other)
	}
	r.byType[t] = entry{name: name}
	r.byName[name] = t
	return name, nil
}

// Name returns the registered name of t, or DefaultName(t) when t is not
// registered. It does not register anything.
func (r *Registry) Name(t reflect.Type) string {
	r.mu.RLock()
	e, ok := r.byType[t]
	r.mu.RUnlock()
	if ok {
		return e.name
	}
	return DefaultName(t)
}

// Lookup returns the type registered under name.
func (r *Registry) Lookup(name string) (reflect.Type, bool) {
	r.mu.RLock()
	t, ok := r.byName[name]
	r.mu.RUnlock()
	return t, ok
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	r.mu.RUnlock()
	slices.Sort(names)
	return names
}

// DefaultName is the name a type gets when it was never registered
// explicitly: "import/path.TypeName" for a named type, a leading "*" for a
// pointer to one, and reflect's spelling (such as "[]string") for other
// unnamed types.
func DefaultName(t reflect.Type) string {
	if t == nil {
		return "<nil>"
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	if t.Kind() == reflect.Pointer && t.Elem().Name() != "" && t.Elem().PkgPath() != "" {
		return "*" + DefaultName(t.Elem())
	}
	return t.String()
}
