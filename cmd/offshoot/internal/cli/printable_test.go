package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintable(t *testing.T) {
	tests := map[string]string{
		"plain text":          "plain text",
		"a\n\tb":              "a\n\tb",
		"b\x1b[31mred":        "b\uFFFD[31mred",
		"csi\u009b2J":         "csi\uFFFD2J",
		"cr\rover":            "cr\uFFFDover",
		"bad\xff":             "bad\uFFFD",
		"ünïcödé and emoji 🙂": "ünïcödé and emoji 🙂",
	}
	for in, want := range tests {
		assert.Equal(t, want, Printable(in), "%q", in)
	}
}

func TestPrintableID(t *testing.T) {
	assert.Equal(t, "abc", PrintableID("abc"))
	assert.Equal(t, "a\uFFFDb", PrintableID("a\x1bb"))
	long := strings.Repeat("é", 50)
	assert.Equal(t, strings.Repeat("é", 40)+"… (100 bytes)", PrintableID(long))
}
