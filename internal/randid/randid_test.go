package randid

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewIsAVersion4UUID(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := New()
		u, err := uuid.Parse(id)
		require.NoError(t, err, id)
		assert.Equal(t, uuid.Version(4), u.Version())
		assert.Equal(t, uuid.RFC4122, u.Variant())
		assert.Equal(t, u.String(), id, "canonical form")
		require.False(t, seen[id])
		seen[id] = true
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = New()
	}
}
