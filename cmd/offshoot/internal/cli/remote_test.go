package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":         "nats://127.0.0.1:4222",
		"nats://u:p@h:1":                "nats://u:xxxxx@h:1",
		"nats://tok@h:1":                "nats://xxxxx@h:1",
		"tls://u:p@h:1, nats://v:q@g:2": "tls://u:xxxxx@h:1,nats://v:xxxxx@g:2",
		"u:p@h:1":                       "u:xxxxx@h:1",
		"%zz://u:p@h":                   "%zz://u:xxxxx@h",
		"nats://a@b:c@h:1":              "nats://a:xxxxx@h:1",
	} {
		assert.Equal(t, want, Redact(in), in)
	}
	require.Empty(t, Redact(""))
}
