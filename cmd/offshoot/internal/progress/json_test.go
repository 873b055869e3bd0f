package progress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
)

func TestJSON(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := JSON(b, &out)
	tell(t, b,
		ev{"s1", runner.ModelCalled{Turn: 1, Model: "main"}},
		text("s1", "<b>&"),
		ev{"s1", func() {}},
	)
	stop()
	tell(t, b, text("s1", "after stop"))

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	var got []Line
	for _, l := range lines {
		var line Line
		require.NoError(t, json.Unmarshal([]byte(l), &line), l)
		got = append(got, line)
	}
	assert.Equal(t, "runner.ModelCalled", got[0].Type)
	assert.Equal(t, "s1", got[0].SessionID)
	assert.JSONEq(t, `{"evaluation":"","ns":"","key":"","model":"main","turn":1,"duration":0,"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0}}`, string(got[0].Event))
	assert.Equal(t, "runner.Delta", got[1].Type)
	assert.Contains(t, lines[1], `<b>&`, "no HTML escaping")
	assert.Less(t, got[0].Seq, got[1].Seq)
	assert.Equal(t, "func()", got[2].Type)
	assert.Contains(t, got[2].Error, "cannot encode the event")
	assert.Empty(t, got[2].Event)
}
