package transcript_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// testdata/v1 holds the files of a background agent as the engine wrote
// them before this package was split from it: they read the same, and a
// Writer writes them the same, byte for byte.
func TestFilesOfThePreviousVersionRead(t *testing.T) {
	const v1 = "testdata/v1"
	tr, err := transcript.Dir(v1).Read("a1")
	require.NoError(t, err)
	m := tr.Meta
	assert.Equal(t, "a1", m.AgentID)
	assert.Equal(t, "child/worker", m.Type)
	assert.Equal(t, "Find the bug", m.Description)
	assert.Equal(t, "scripted", m.Model)
	assert.Equal(t, "fresh", m.Mode)
	assert.Equal(t, 1, m.Depth)
	assert.Equal(t, "root-1", m.ParentSessionID)
	assert.Equal(t, "root-1", m.RootSessionID)
	assert.True(t, m.Background)
	assert.Equal(t, "completed", m.Status)
	assert.Equal(t, &transcript.Owner{PID: 20600, Host: "example-host", Token: "d33d993a-0e05-4689-ad51-9f46904015d1:154399"}, m.Owner)
	assert.Equal(t, time.Date(2025, 5, 1, 9, 0, 1, 500_000_000, time.UTC), m.StartedAt)
	assert.Equal(t, time.Date(2025, 5, 1, 9, 0, 4, 500_000_000, time.UTC), m.FinishedAt)
	assert.Equal(t, 1, m.Runs)
	assert.Equal(t, model.Usage{InputTokens: 140, OutputTokens: 36, TotalTokens: 176}, m.Usage.Own)
	assert.Equal(t, m.Usage.Own, m.Usage.Total)
	assert.Equal(t, 2, m.Usage.ModelCalls)
	assert.Equal(t, map[string]int{"write": 1}, m.Usage.ToolCalls)
	require.Len(t, tr.Messages, 4)
	assert.Equal(t, model.UserMessage("do the work"), tr.Messages[0])
	assert.Equal(t, "write", tr.Messages[1].ToolCalls[0].Name)
	assert.Equal(t, model.AssistantMessage("The bug is in parse.go."), tr.Messages[3])

	list, err := transcript.Dir(v1).List()
	require.NoError(t, err)
	assert.Equal(t, []transcript.Meta{m}, list)

	// Written again, the files are the same.
	dir := t.TempDir()
	w := transcript.Dir(dir).Create(m, nil, nil)
	for _, msg := range tr.Messages {
		w.Append(msg)
	}
	output, err := os.ReadFile(filepath.Join(v1, "root-1", "subagents", "agent-a1.output"))
	require.NoError(t, err)
	w.WriteOutput(string(output))
	w.Close()
	for _, name := range []string{"agent-a1.jsonl", "agent-a1.output"} {
		want, err := os.ReadFile(filepath.Join(v1, "root-1", "subagents", name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, "root-1", "subagents", name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
	want, err := os.ReadFile(filepath.Join(v1, "root-1", "subagents", "agent-a1.meta.json"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "root-1", "subagents", "agent-a1.meta.json"))
	require.NoError(t, err)
	var written transcript.Meta
	require.NoError(t, json.Unmarshal(got, &written))
	assert.NotEqual(t, m.Owner, written.Owner, "the writer's process owns the record")
	written.Owner = m.Owner
	again, err := json.MarshalIndent(written, "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(again)+"\n")
}
