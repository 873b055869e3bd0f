package sqlitedsn

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		dsn, path, sync, err string
	}{
		{"sessions.db", "sessions.db", "NORMAL", ""},
		{"/var/lib/s.db?_synchronous=FULL", "/var/lib/s.db", "FULL", ""},
		{"s.db?_synchronous=extra", "s.db", "EXTRA", ""},
		{"s.db?_synchronous=NORMAL&_synchronous=FULL", "s.db", "FULL", ""},
		{"what?.db", "what?.db", "NORMAL", ""},
		{"a?b=c", "a?b=c", "NORMAL", ""},             // not options: a name without _
		{"a?_b=c/d?_x", "a?_b=c/d?_x", "NORMAL", ""}, // the last ? starts no options
		{"s.db?", "s.db?", "NORMAL", ""},
		{"s.db?_synchronous=OFF", "", "", "_synchronous=OFF: the store keeps NORMAL, FULL or EXTRA synchronous"},
		{"s.db?_synchronous=", "", "", "_synchronous=: the store keeps"},
		{"s.db?_cache=shared", "", "", `the DSN "s.db?_cache=shared" has an unknown option _cache; the options are _synchronous (NORMAL, FULL or EXTRA)`},
	} {
		t.Run(tt.dsn, func(t *testing.T) {
			path, sync, err := Split(tt.dsn)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.path, path)
			require.Equal(t, tt.sync, sync)
		})
	}
}

// Whatever the DSN, Split returns a prefix of it as the path and one of
// the settings the store keeps, or an error.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"s.db", "s.db?_synchronous=FULL", "a?b", "s.db?_x=1&_synchronous=extra", "?", "?_=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		path, sync, err := Split(dsn)
		if err != nil {
			require.Empty(t, path)
			return
		}
		require.True(t, strings.HasPrefix(dsn, path))
		require.Contains(t, []string{"NORMAL", "FULL", "EXTRA"}, sync)
	})
}
