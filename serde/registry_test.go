package serde

import (
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type regNote struct{ Text string }

type regTodo struct{ Title string }

type regBox[T any] struct{ V T }

func TestDefaultName(t *testing.T) {
	const pkg = "github.com/offshoot-dev/offshoot/serde."
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{nil, "<nil>"},
		{reflect.TypeFor[regNote](), pkg + "regNote"},
		{reflect.TypeFor[*regNote](), "*" + pkg + "regNote"},
		{reflect.TypeFor[[]string](), "[]string"},
		{reflect.TypeFor[int](), "int"},
		{reflect.TypeFor[map[string]int](), "map[string]int"},
		{reflect.TypeFor[[]regNote](), "[]serde.regNote"},
		{reflect.TypeFor[regBox[int]](), pkg + "regBox[int]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DefaultName(tt.typ))
	}
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *Registry) error
		msg   string // "" for success
	}{
		{"new name", func(r *Registry) error { return Register[regNote](r, "note") }, ""},
		{"same again", func(r *Registry) error {
			require.NoError(t, Register[regNote](r, "note"))
			return Register[regNote](r, "note")
		}, ""},
		{"empty name", func(r *Registry) error { return Register[regNote](r, "") }, "empty name"},
		{"nil type", func(r *Registry) error { return r.RegisterType(nil, "x") }, "nil type"},
		{"name taken", func(r *Registry) error {
			require.NoError(t, Register[regNote](r, "note"))
			return Register[regTodo](r, "note")
		}, `name "note" is already registered`},
		{"second explicit name", func(r *Registry) error {
			require.NoError(t, Register[regNote](r, "note"))
			return Register[regNote](r, "note.v2")
		}, "a type has one name"},
		{"explicit replaces default", func(r *Registry) error {
			_, err := r.Ensure(reflect.TypeFor[regNote]())
			require.NoError(t, err)
			return Register[regNote](r, "note")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.setup(NewRegistry())
			if tt.msg == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestRegistryLookups(t *testing.T) {
	r := NewRegistry()
	note, todo := reflect.TypeFor[regNote](), reflect.TypeFor[regTodo]()

	name, err := r.Ensure(note)
	require.NoError(t, err)
	assert.Equal(t, DefaultName(note), name)
	got, ok := r.Lookup(name)
	require.True(t, ok)
	assert.Equal(t, note, got)

	require.NoError(t, Register[regNote](r, "note"))
	_, ok = r.Lookup(DefaultName(note))
	assert.False(t, ok, "the default name is released")
	name, err = r.Ensure(note)
	require.NoError(t, err)
	assert.Equal(t, "note", name, "Ensure keeps the explicit name")

	assert.Equal(t, DefaultName(todo), r.Name(todo), "Name does not register")
	_, ok = r.Lookup(DefaultName(todo))
	assert.False(t, ok)

	require.NoError(t, Register[regTodo](r, "a.todo"))
	assert.Equal(t, []string{"a.todo", "note"}, r.Names())
	assert.Equal(t, "a.todo", r.Name(todo))

	_, ok = r.Lookup("missing")
	assert.False(t, ok)
}

func TestEnsureCollision(t *testing.T) {
	r := NewRegistry()
	note := reflect.TypeFor[regNote]()
	require.NoError(t, r.RegisterType(reflect.TypeFor[regTodo](), DefaultName(note)))
	_, err := r.Ensure(note)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "register one of them with serde.Register")
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	types := []reflect.Type{reflect.TypeFor[regNote](), reflect.TypeFor[regTodo](), reflect.TypeFor[regBox[int]]()}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				typ := types[(i+j)%len(types)]
				name, err := r.Ensure(typ)
				assert.NoError(t, err)
				got, ok := r.Lookup(name)
				assert.True(t, ok)
				assert.Equal(t, typ, got)
				_ = r.Names()
			}
		})
	}
	wg.Wait()
	assert.Len(t, r.Names(), len(types))
}

func TestDefaultRegistryIsUsable(t *testing.T) {
	require.NotNil(t, DefaultRegistry)
	assert.Equal(t, DefaultName(reflect.TypeFor[regNote]()), DefaultRegistry.Name(reflect.TypeFor[regNote]()))
}
