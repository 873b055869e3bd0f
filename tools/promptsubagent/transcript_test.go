package promptsubagent_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// A dispatched child's transcript starts with its task: the system
// message, where the instructions are; its record is described by the
// instructions' first line, clipped.
func TestTheTranscriptHoldsTheDelegatedTask(t *testing.T) {
	long := "Review " + strings.Repeat("every module ", 20) + "for bugs"
	tests := []struct {
		name         string
		instructions string
		description  string
	}{
		{"one line", "Review src/a.go for bugs.", "Review src/a.go for bugs."},
		{"several lines", "  Review src/a.go.\nLook at the error paths first.\n", "Review src/a.go."},
		{"a long first line", long + "\nthen report", long[:strings.LastIndexByte(long[:97], ' ')] + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWorld(t, promptsubagent.Options{})
			var n atomic.Int64
			engine := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: func() string { return fmt.Sprintf("agent-%d", n.Add(1)) }})
			parent, err := prompt.New("root", "planner", prompt.Markdown[prompt.NoParams]("Planner", "You coordinate the work."),
				promptsubagent.Section(w.reg, engine, promptsubagent.Options{}))
			require.NoError(t, err)
			m := scripted.New(
				scripted.When(scripted.SystemContains(workerText), scripted.Text("a.go is fine")),
				scripted.ToolCall("dispatch_subagent", args(t, adHoc(tt.instructions))),
				scripted.Text("ok"),
			)
			_, err = runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: w.s, Model: m, ModelName: "scripted", UserMessage: "go"})
			require.NoError(t, err)

			tr, err := transcript.Dir(dir).Read("agent-1")
			require.NoError(t, err)
			require.NotEmpty(t, tr.Messages)
			first := tr.Messages[0]
			assert.Equal(t, model.RoleSystem, first.Role)
			assert.Contains(t, first.Content, strings.TrimSpace(tt.instructions), "the task is the first line")
			assert.Contains(t, first.Content, workerText)
			assert.Equal(t, model.AssistantMessage("a.go is fine"), tr.Messages[len(tr.Messages)-1])

			assert.Equal(t, "agents/worker", tr.Meta.Type)
			assert.Equal(t, tt.description, tr.Meta.Description)
			assert.LessOrEqual(t, len(tr.Meta.Description), 100)
			assert.Equal(t, "scripted", tr.Meta.Model)
			assert.Equal(t, string(subagent.TaskStatusCompleted), tr.Meta.Status)
		})
	}
}
