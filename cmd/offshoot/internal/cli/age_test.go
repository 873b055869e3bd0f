package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30d", 30 * day, ""},
		{"0d", 0, ""},
		{"0s", 0, ""},
		{"12h", 12 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"1d12h", day + 12*time.Hour, ""},
		{"36600d", 36600 * day, ""},
		{"", 0, `"" is empty`},
		{"30", 0, `"30" is not an age`},
		{"30days", 0, `"30days" is not an age`},
		{"d", 0, `"d" does not start with a whole number of days`},
		{"1.5d", 0, `"1.5d" does not start with a whole number of days`},
		{"+3d", 0, "does not start with a whole number of days"},
		{"-3d", 0, `"-3d" is negative`},
		{"-1h", 0, `"-1h" is negative`},
		{"1d-2h", 0, "is negative"},
		{"36601d", 0, "is too long an age (at most 36600 days)"},
		{"99999999999999999999d", 0, "is too long an age"},
		{"36600d1h", 0, "is too long an age"},
		{"2000000h", 0, "is too long an age"},
		{"3 d", 0, "does not start with a whole number of days"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAge(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "give days such as 30d", "the error says what to write")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseAge checks that any input gives an age within bounds or an
// error naming the input, and that days mean 24 hours.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "12h", "1d12h", "-1h", "30days", "", "d", "99999999999999999999d", "1d1d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAge(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("the error %q does not name the input %q", err, s)
			}
			return
		}
		if got < 0 || got > maxAge {
			t.Fatalf("ParseAge(%q) = %v, out of bounds", s, got)
		}
		if n, ok := strings.CutSuffix(s, "d"); ok {
			days, err := strconv.Atoi(n)
			if err == nil && got != time.Duration(days)*24*time.Hour {
				t.Fatalf("ParseAge(%q) = %v, want %d days", s, got, days)
			}
		}
	})
}
