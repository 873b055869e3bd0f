package transcript_test

import (
	"fmt"
	"os"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

func ExampleDir() {
	dir, _ := os.MkdirTemp("", "transcripts")
	defer os.RemoveAll(dir)
	transcripts := transcript.Dir(dir)

	// What an engine writes as an agent runs (subagent.Options.Transcripts).
	started := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	meta := transcript.Meta{AgentID: "reviewer-1", Type: "reviewer", Mode: "fresh", Depth: 1, ParentSessionID: "main", RootSessionID: "main",
		Status: "running", StartedAt: started, UpdatedAt: started, Runs: 1}
	w := transcripts.Create(meta, nil, nil)
	w.Append(model.UserMessage("Review parse.go."))
	w.Append(model.AssistantMessage("One bug, line 12."))
	meta.Status, meta.UpdatedAt, meta.FinishedAt = "completed", started.Add(2*time.Second), started.Add(2*time.Second)
	w.WriteMeta(meta)
	w.Close()

	// What a command line reads back.
	metas, _ := transcripts.List()
	for _, m := range metas {
		fmt.Println(m.AgentID, m.Type, m.Status, m.FinishedAt.Sub(m.StartedAt))
	}
	tr, _ := transcripts.Read("reviewer-1")
	for _, m := range tr.Messages {
		fmt.Println(m.Role+":", m.Content)
	}
	_, err := transcripts.Read("nobody")
	fmt.Println(err)
	removed, _ := transcripts.Prune(time.Now().Add(time.Hour)) // all that did not change in the last hour and the next
	fmt.Println("removed", removed)
	// Output:
	// reviewer-1 reviewer completed 2s
	// user: Review parse.go.
	// assistant: One bug, line 12.
	// No agent found with ID: nobody
	// removed 1
}
