package main

import (
	"context"
	"testing"

	"github.com/offshoot-dev/offshoot/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// TestChildLeavesParentAlone forks a reviewer from a parent session, lets
// it read a file and write one of its own, and proves that it started with
// exactly the parent's state and did not change the parent.
func TestChildLeavesParentAlone(t *testing.T) {
	ctx := context.Background()

	// The parent: a session with the file tools and one file.
	parent, err := session.New()
	require.NoError(t, err)
	defer parent.Close()
	files, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	require.NoError(t, files.Install(context.Background(), parent))
	require.NoError(t, parent.Dispatch(ctx, vfs.FileWritten{Path: "notes.md", Content: "# Notes\n\n- ship on Friday\n", Version: 1}))

	// 1. Capture the parent before the child runs. The capture is deep: a
	// child that changed a map or a slice it shares with its parent would
	// be caught, not only one that dispatched events to it.
	before := sessiontest.Capture(parent)

	// 2. Check parity the moment the child exists, before it runs: every
	// slice equals the parent's.
	engine := subagent.New(subagent.Options{ChildSetup: func(child *session.Session) error {
		sessiontest.AssertParity(t, before.Snapshot(), child)
		return nil
	}})

	// 3. Run the child on a scripted model: it reads the parent's file and
	// writes a file of its own.
	reviewer, err := prompt.New("agents", "reviewer", prompt.Markdown[prompt.NoParams]("Reviewer", "You review notes."))
	require.NoError(t, err)
	out, err := engine.Run(ctx, subagent.Spec{Name: "agents/reviewer", Parent: parent, Request: runner.Request{Prompt: reviewer, Tools: files, UserMessage: "Review notes.md; write your review to review.md.", Model: scripted.New(
		scripted.ToolCall("read_file", `{"file_path":"notes.md"}`),
		scripted.ToolCall("write_file", `{"file_path":"review.md","content":"Friday is fine."}`),
		scripted.Text("Reviewed: see review.md."),
	)}})
	require.NoError(t, err)

	// 4. The child's first state equals the parent's snapshot...
	assert.Empty(t, sessiontest.Diff(before.Snapshot(), out.Start), "the child started from the parent's state")
	// ...and it did its work in its own session,
	_, wrote := vfs.FilesOf(out.Final).Get("review.md")
	assert.True(t, wrote, "the child wrote review.md in its own session")

	// 5. while the parent is exactly as it was: no review.md, no record of
	// the child's turns, nothing changed through shared memory.
	sessiontest.AssertUnchanged(t, before, parent)
}
