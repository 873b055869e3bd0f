package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// FuzzParseTranscript checks that any bytes read as a transcript either
// fail cleanly or give valid messages, that the tail to append after
// ends on a line boundary, and that appending a message there gives a
// transcript that reads back with that message last.
func FuzzParseTranscript(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"task"}` + "\n" + `{"role":"assistant","content":"answer"}` + "\n"))
	f.Add([]byte(`{"role":"user","content":"task"}` + "\n" + `{"role":"assistant","tool_calls":[{"id":"1","name":"ls","arguments":"{}"}]}` + "\n" + `{"role":"tool","tool_call_id":"1","cont`))
	f.Add([]byte(`{"role":"user","content":"a"}`))
	f.Add([]byte("\n\n  \n"))
	f.Add([]byte(`{"role":"user"}{"role":"user"}` + "\n"))
	f.Add([]byte("garbage\n" + `{"role":"user","content":"a"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, tail, err := parseTranscript(data)
		if err != nil {
			assert.Contains(t, err.Error(), "line ")
			return
		}
		for _, m := range msgs {
			assert.True(t, m.Role.Valid())
		}
		require.True(t, tail.set)
		require.LessOrEqual(t, tail.keep, int64(len(data)))
		kept := append([]byte(nil), data[:tail.keep]...)
		if tail.newline {
			kept = append(kept, '\n')
		} else if len(kept) > 0 {
			require.Equal(t, byte('\n'), kept[len(kept)-1], "the kept part ends a line")
		}
		line, err := json.Marshal(model.UserMessage("next"))
		require.NoError(t, err)
		again, _, err := parseTranscript(append(kept, append(line, '\n')...))
		require.NoError(t, err)
		require.Equal(t, len(msgs)+1, len(again))
		assert.Equal(t, model.UserMessage("next"), again[len(again)-1])
	})
}

// FuzzSafeName checks that the file name of any id is one safe path
// element, and that distinct ids get distinct names.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../x", "a/b", `a\b`, "CON", "Aa", "aA", "%41", "~", strings.Repeat("é", 100)} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na := safeName(a)
		require.NotEmpty(t, na)
		assert.NotEqual(t, ".", na)
		assert.NotEqual(t, "..", na)
		assert.Equal(t, filepath.Base(na), na)
		assert.NotContains(t, na, "/")
		assert.NotContains(t, na, `\`)
		assert.False(t, strings.ContainsAny(na, "*?[]"), "no glob metacharacter")
		assert.LessOrEqual(t, len(na), maxNameLen)
		if a != b {
			assert.False(t, strings.EqualFold(na, safeName(b)), "%q and %q share a name, also where case is ignored", a, b)
		}
	})
}
