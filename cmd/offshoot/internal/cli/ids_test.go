package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeIDs resolves among ids, as a store or a transcripts folder would.
func fakeIDs(ids ...string) IDs {
	return IDs{
		Kind: "session",
		Exists: func(id string) (bool, error) {
			return slices.Contains(ids, id), nil
		},
		Starting: func(prefix string, limit int) ([]string, error) {
			var out []string
			for _, id := range ids {
				if strings.HasPrefix(id, prefix) && len(out) < limit {
					out = append(out, id)
				}
			}
			return out, nil
		},
	}
}

func TestResolveAnID(t *testing.T) {
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("ffffffff-%04d", i))
	}
	ids := fakeIDs(append([]string{
		"e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e", "e0c67ba4-0000-0000-0000-000000000000",
		"e0c67ba4-1111-0000-0000-000000000000", "root-1", "a1",
	}, many...)...)
	for _, tt := range []struct {
		given, want string
		found       bool
		err         string // a usage error saying so
	}{
		{given: "e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e", want: "e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e", found: true},
		{given: "e0c67ba3", want: "e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e", found: true},
		{given: "e0c67ba3-5e2", want: "e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e", found: true},
		{given: "root-1", want: "root-1", found: true},
		{given: "a1", want: "a1", found: true},
		{given: "e0c67ba9"},
		{given: ""},
		{given: "e0c67ba4", err: "e0c67ba4 is the start of more than one session id: e0c67ba4-0000-0000-0000-000000000000, e0c67ba4-1111-0000-0000-000000000000; give more of the id"},
		{given: "e0c67ba4-1", want: "e0c67ba4-1111-0000-0000-000000000000", found: true},
		{given: "ffffffff", err: "ffffffff-0009, and more; give more of the id"},
		{given: "e0c67b"},
		{given: "root"},
	} {
		t.Run(tt.given, func(t *testing.T) {
			id, found, err := ids.Resolve(tt.given)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.NotContains(t, err.Error(), "\x1b", "printable")
				var ee *ExitError
				require.ErrorAs(t, err, &ee)
				assert.Equal(t, ExitUsage, ee.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, id)
		})
	}
}

func TestResolveNamesTheFlagAndPassesFailuresOn(t *testing.T) {
	ids := fakeIDs("e0c67ba4-0", "e0c67ba4-1")
	ids.Flag = "--resume"
	_, _, err := ids.Resolve("e0c67ba4")
	require.ErrorContains(t, err, "--resume: e0c67ba4 is the start of more than one session id")

	broken := errors.New("the store is damaged")
	ids.Starting = func(string, int) ([]string, error) { return nil, broken }
	_, _, err = ids.Resolve("e0c67ba4")
	require.ErrorIs(t, err, broken)
}

func TestShort(t *testing.T) {
	assert.Equal(t, " (a start of an id names one only with 8 characters or more: give 8 or more, or the whole id)", Short("e0c67b"))
	assert.Empty(t, Short("e0c67ba3"))
	assert.Empty(t, Short(""))
}

func TestShortID(t *testing.T) {
	for given, want := range map[string]string{
		"e0c67ba3-5e23-451e-bc8d-9472f9bbfe0e": "e0c67ba3",
		"root-1":                               "root-1",
		"chat-2026-11-27":                      "chat-202",
		"ééééééééééééééé":                      "éééééééé",
		"abcdefghijkl":                         "abcdefghijkl",
	} {
		assert.Equal(t, want, ShortID(given), given)
	}
}
