// Command resume shows a conversation outliving the process that held it:
// offline, on a scripted model.
//
//	go run ./examples/resume
//
// It starts itself again as a worker process that keeps a chat in a
// SQLite file (package store/sqlite, through offshoot.Options.Store): the
// worker asks its agent to take a note — the agent writes notes.md with
// its write_file tool — asks a second question, and then, in the middle
// of the model call for a third, kills itself (os.Process.Kill: no
// deferred code runs, nothing is flushed or closed). This program then
// checks the file, opens the same session in a new client and carries the
// conversation on: the questions and answers stored before the crash, the
// third question included, and the file the agent wrote are all there,
// and the model is asked again with the whole conversation.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store/sqlite"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// workerEnv, set to a database file's path, makes the program the worker
// that crashes.
const workerEnv = "OFFSHOOT_EXAMPLE_RESUME_WORKER"

// sessionID is the stored session's id: the worker's and the resumed one.
const sessionID = "notes"

func main() {
	if path := os.Getenv(workerEnv); path != "" {
		if err := worker(os.Stdout, path); err != nil {
			fmt.Fprintln(os.Stderr, "resume worker:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "resume worker: it should have crashed")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "offshoot-resume-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "resume:", err)
		os.Exit(1)
	}
	err = run(os.Stdout, dir, os.Args[0])
	os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "resume:", err)
		os.Exit(1)
	}
}

// run starts self as the worker on a database in dir, waits for it to
// crash, and carries its conversation on.
func run(out io.Writer, dir, self string) error {
	path := filepath.Join(dir, "sessions.db")
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), workerEnv+"="+path)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	fmt.Fprintf(out, "== a worker process (%s) keeps the chat in %s\n", filepath.Base(self), filepath.Base(path))
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Exited() {
		return fmt.Errorf("the worker should have been killed, and it ended with %v", err)
	}
	fmt.Fprintf(out, "== the worker crashed (%v)\n", err)
	return resume(out, path)
}

// worker chats in a session stored at path, and kills its own process in
// the model call of its third question.
func worker(out io.Writer, path string) error {
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer st.Close() // never reached: the process is killed first
	answers := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case strings.HasPrefix(last.Content, "Take a note"):
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "w1", Name: "write_file",
				Arguments: `{"file_path": "notes.md", "content": "Invoices round half to even, per line.\n"}`})}, nil
		case last.Role == model.RoleTool:
			return &model.Response{Message: model.AssistantMessage("Noted in notes.md.")}, nil
		case strings.HasPrefix(last.Content, "How do invoices round"):
			return &model.Response{Message: model.AssistantMessage("Half to even, per line.")}, nil
		}
		// The third question: the crash, in the middle of the model call.
		fmt.Fprintln(out, "   worker: killing itself in the middle of a model call")
		self, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = self.Kill()
		}
		if err != nil {
			return nil, fmt.Errorf("the worker could not kill itself: %w", err)
		}
		select {} // the kill takes the process; nothing after it runs
	})
	c, err := offshoot.NewClient(offshoot.Options{Model: answers, Store: st, SessionID: sessionID})
	if err != nil {
		return err
	}
	for _, q := range []string{"Take a note: invoices round half to even, per line.", "How do invoices round?", "And taxes?"} {
		fmt.Fprintf(out, "   user: %s\n", q)
		for msg := range c.Query(context.Background(), q) {
			if r, ok := msg.(offshoot.ResultMessage); ok {
				if r.Err != nil {
					return r.Err
				}
				fmt.Fprintf(out, "   agent: %s\n", r.Text)
			}
		}
	}
	return nil
}

// resume opens the crashed worker's session in a new client, shows what
// it holds, and asks the model again.
func resume(out io.Writer, path string) error {
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Check(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "== the database passes SQLite's integrity check")
	var seen int
	answers := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		seen = len(req.Messages)
		return &model.Response{Message: model.AssistantMessage("Taxes round once, on the total.")}, nil
	})
	c, err := offshoot.NewClient(offshoot.Options{Model: answers, Store: st, SessionID: sessionID})
	if err != nil {
		return err
	}
	defer c.Close()
	snap := c.Session().Snapshot()
	fmt.Fprintf(out, "== a new client opened session %q at seq %d; its conversation:\n", sessionID, snap.Seq())
	evals := runner.Evaluations(snap)
	if len(evals) == 0 {
		return errors.New("the stored session holds no conversation")
	}
	conversation := runner.Conversation(snap, evals[len(evals)-1])
	for _, m := range conversation {
		switch {
		case m.Role == model.RoleUser:
			fmt.Fprintf(out, "   user: %s\n", m.Content)
		case m.Role == model.RoleAssistant && m.Content != "":
			fmt.Fprintf(out, "   agent: %s\n", m.Content)
		case m.Role == model.RoleAssistant:
			fmt.Fprintf(out, "   agent calls %s\n", m.ToolCalls[0].Name)
		}
	}
	if f, ok := vfs.Files(c.Session()).Get("notes.md"); ok {
		fmt.Fprintf(out, "== notes.md, as the agent wrote it: %q\n", f.Content)
	}
	question := "And taxes?"
	if last := conversation[len(conversation)-1]; last.Role == model.RoleUser {
		// The crash came before the answer: ask again.
		question = last.Content
		fmt.Fprintln(out, "== the last question has no answer (the worker crashed asking it): it is asked again")
	}
	for msg := range c.Query(ctx, question) {
		if r, ok := msg.(offshoot.ResultMessage); ok {
			if r.Err != nil {
				return r.Err
			}
			fmt.Fprintf(out, "   user: %s\n   agent: %s\n", question, r.Text)
		}
	}
	fmt.Fprintf(out, "== the model read %d messages: the whole conversation, before the crash and after\n", seen)
	return nil
}
