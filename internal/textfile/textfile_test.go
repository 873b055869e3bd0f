package textfile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/internal/textfile"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   string
		binary bool
		text   bool
	}{
		{"empty", "", false, true},
		{"text", "# Notes\n", false, true},
		{"accents", "café ünïcode\n", false, true},
		{"a NUL at the start", "\x00abc", true, false},
		{"a NUL within 8 KiB", strings.Repeat("a", 8<<10-1) + "\x00", true, false},
		{"a NUL after 8 KiB", strings.Repeat("a", 8<<10) + "\x00", false, true},
		{"not UTF-8", "\xff\xfe", false, false},
		{"at the cap", strings.Repeat("é", textfile.MaxChars), false, true},
		{"over the cap", strings.Repeat("a", textfile.MaxChars+1), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.binary, textfile.Binary([]byte(tc.data)))
			assert.Equal(t, tc.text, textfile.Text([]byte(tc.data)))
		})
	}
}
