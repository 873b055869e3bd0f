package planning_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

// snapshotWithPlan returns the snapshot JSON of a session holding a plan,
// with the plan's JSON replaced by plan (when not empty), and the index of
// the plan's slice.
func snapshotWithPlan(t *testing.T, plan string) ([]byte, int) {
	t.Helper()
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(context.Background(), planning.Reducers()))
	require.NoError(t, s.Dispatch(context.Background(), planning.PlanSetUp{Objective: "Ship it", Steps: []planning.StepDraft{{Title: "Write"}, {Title: "Tag"}}}))
	data, err := session.MarshalSnapshot(s.Snapshot(), nil)
	require.NoError(t, err)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	var slices []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["slices"], &slices))
	at := -1
	for i, sl := range slices {
		if string(sl["slice_type"]) == `"offshoot.planning.Plan"` {
			at = i
			if plan != "" {
				sl["items"] = json.RawMessage("[" + plan + "]")
			}
		}
	}
	require.GreaterOrEqual(t, at, 0, "no plan slice in %s", data)
	doc["slices"], err = json.Marshal(slices)
	require.NoError(t, err)
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	return data, at
}

// stepJSON is the JSON of a step.
func stepJSON(id, title, status string, notes ...string) string {
	n, _ := json.Marshal(append([]string{}, notes...))
	return fmt.Sprintf(`{"step_id":%q,"title":%q,"details":"","status":%q,"notes":%s}`, id, title, status, n)
}

// planJSON is the JSON of a plan.
func planJSON(objective, status string, steps ...string) string {
	return fmt.Sprintf(`{"objective":%q,"status":%q,"steps":[%s]}`, objective, status, strings.Join(steps, ","))
}

// A plan restored from snapshot JSON is checked as the tools would have
// built it; a crafted one is a *session.RestoreError naming the item.
func TestRestoredPlansAreValidated(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name, plan, want string
	}{
		{"duplicate step ids", planJSON("Ship", "active", stepJSON("S001", "a", "pending"), stepJSON("S001", "b", "pending")),
			"steps[1].step_id: S001 appears twice; step ids are unique"},
		{"ids out of order", planJSON("Ship", "active", stepJSON("S002", "a", "pending"), stepJSON("S001", "b", "pending")),
			"steps[1].step_id: S001 comes after S002; step ids increase in the order the steps were added"},
		{"a malformed id", planJSON("Ship", "active", stepJSON("X1", "a", "pending")),
			`steps[0].step_id: "X1" is not a step id such as S001`},
		{"a non-canonical id", planJSON("Ship", "active", stepJSON("s1", "a", "pending")),
			`steps[0].step_id: "s1" is not a step id such as S001`},
		{"an unknown plan status", planJSON("Ship", "paused", stepJSON("S001", "a", "pending")),
			`status: "paused" is not a plan status; use active, completed or abandoned`},
		{"no status", planJSON("Ship", "", stepJSON("S001", "a", "pending")),
			`status: "" is not a plan status`},
		{"an unknown step status", planJSON("Ship", "active", stepJSON("S001", "a", "skipped")),
			`steps[0].status: "skipped" is not a step status; use pending, in_progress, blocked or done`},
		{"an oversized objective", planJSON(long(241), "active"),
			"objective: must be at most 240 characters once trimmed; shorten it (it has 241)"},
		{"an oversized title", planJSON("Ship", "active", stepJSON("S001", long(161), "pending")),
			"steps[0].title: must be at most 160 characters"},
		{"an empty title", planJSON("Ship", "active", stepJSON("S001", " ", "pending")),
			"steps[0].title: must not be empty once trimmed"},
		{"an untrimmed title", planJSON("Ship", "active", stepJSON("S001", " a", "pending")),
			"steps[0].title: must not start or end with white space"},
		{"a non-ASCII title", planJSON("Ship", "active", stepJSON("S001", "café", "pending")),
			"steps[0].title: must be ASCII"},
		{"oversized details", `{"objective":"Ship","status":"active","steps":[{"step_id":"S001","title":"a","details":"` + long(513) + `","status":"pending","notes":[]}]}`,
			"steps[0].details: must be at most 512 characters"},
		{"an oversized note", planJSON("Ship", "active", stepJSON("S001", "a", "pending", "ok", long(513))),
			"steps[0].notes[1]: must be at most 512 characters"},
		{"an empty note", planJSON("Ship", "active", stepJSON("S001", "a", "pending", "")),
			"steps[0].notes[0]: must not be empty once trimmed"},
		{"an abandoned plan with steps", planJSON("Ship", "abandoned", stepJSON("S001", "a", "pending")),
			"steps: an abandoned plan has no steps"},
		{"a completed plan with a step not done", planJSON("Ship", "completed", stepJSON("S001", "a", "done"), stepJSON("S002", "b", "blocked")),
			"status: a completed plan has every step done; S002 is blocked"},
		{"a completed plan without steps", planJSON("Ship", "completed"),
			"status: a completed plan has every step done; it has no steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, at := snapshotWithPlan(t, tc.plan)
			snap, err := session.UnmarshalSnapshot(data, nil)
			var re *session.RestoreError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, fmt.Sprintf("slices[%d].items[0]", at), re.Path)
			assert.Contains(t, re.Error(), tc.want)
			var ve *serde.ValidationError
			assert.True(t, errors.As(err, &ve), "a serde.ValidationError inside: %v", err)
			assert.Equal(t, session.Snapshot{}, snap, "nothing partial")
		})
	}
}

// Plans the tools build restore unchanged.
func TestValidPlansRestore(t *testing.T) {
	for _, p := range []string{
		"",
		planJSON("Ship", "active"),
		planJSON("Ship", "active", stepJSON("S001", "a", "done", "first"), stepJSON("S003", "b", "in_progress")),
		planJSON("Ship", "completed", stepJSON("S002", "a", "done")),
		planJSON("Ship", "abandoned"),
	} {
		data, _ := snapshotWithPlan(t, p)
		snap, err := session.UnmarshalSnapshot(data, nil)
		require.NoError(t, err, p)
		got, ok := planning.PlanOf(snap)
		require.True(t, ok)
		require.NoError(t, got.Validate())
	}
}
