package scripted

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzLoadCassette checks that loading any input never panics, and that
// every request a loaded cassette holds is answered with its first
// recorded outcome.
func FuzzLoadCassette(f *testing.F) {
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"message":{"role":"assistant","content":"yo"},"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}`))
	f.Add([]byte(`{"request":{"temperature":0.5,"tools":[{"name":"t","parameters":{"type":"object"}}]},"error":"boom","error_kind":"rate_limited"}` + "\n\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"hash":"00","request":{},"response":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Replay(bytes.NewReader(data))
		if err != nil {
			require.Nil(t, p)
			return
		}
		n := 0
		for hash, rec := range p.byHash {
			got, err := RequestHash(rec.req)
			require.NoError(t, err)
			require.Equal(t, hash, got)
			n += len(rec.entries)
			first := rec.entries[0]
			resp, err := p.Generate(context.Background(), rec.req)
			if first.Error != "" {
				require.Error(t, err)
				assert.Equal(t, first.Error, err.Error())
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, first.Response, resp)
		}
		assert.Equal(t, p.Len(), n)
	})
}
