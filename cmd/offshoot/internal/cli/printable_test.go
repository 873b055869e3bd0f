package cli

import (
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
