package loopback

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIs(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "[::1]:80": true, "localhost:1": true, "LOCALHOST:1": true, "127.8.9.1:1": true, "::1": true, "localhost": true,
		"192.168.1.5:8080": false, "0.0.0.0:80": false, "[::]:80": false, "example.com:80": false, "": false,
	} {
		assert.Equal(t, want, Is(addr), addr)
	}
}
