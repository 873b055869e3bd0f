package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/offshoot-dev/offshoot/runner"
)

// ExitWaiting: the run stopped to wait for a person's answer to a
// question of its agent's; 'offshoot sessions answer ID TEXT' continues
// it.
const ExitWaiting = 3

// maxAnswer bounds an answer typed at the terminal, in bytes.
const maxAnswer = 4096

// askUser returns the client's Options.AskUser: at a terminal (standard
// input and output both), the question is asked there and the line typed
// is the answer; elsewhere (a pipe, a file) no one can answer now, and
// the run waits (runner.Wait) for 'offshoot sessions answer'.
func (e *Env) askUser() func(ctx context.Context, question string) (string, error) {
	fin, ok1 := e.Stdin.(*os.File)
	fout, ok2 := e.Stdout.(*os.File)
	if !ok1 || !ok2 || !isCharDevice(fin) || !isCharDevice(fout) {
		return func(_ context.Context, q string) (string, error) { return "", runner.Wait(q) }
	}
	return func(_ context.Context, q string) (string, error) {
		fmt.Fprintf(fout, "\nthe agent asks:\n%s\nyour answer> ", indentLines(Printable(q), "  "))
		answer, err := readAnswer(fin)
		if err != nil && answer == "" {
			return "", runner.Wait(q) // the terminal went away: wait
		}
		return answer, nil
	}
}

// readAnswer reads one line from in, a byte at a time so that nothing
// after it is taken from the terminal, at most maxAnswer bytes.
func readAnswer(in io.Reader) (string, error) {
	var answer []byte
	b := make([]byte, 1)
	for len(answer) < maxAnswer {
		n, err := in.Read(b)
		if n == 0 || err != nil {
			return strings.TrimSpace(string(answer)), io.ErrUnexpectedEOF
		}
		if b[0] == '\n' {
			break
		}
		answer = append(answer, b[0])
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(answer), "")), nil
}

// indentLines puts prefix before each line of text.
func indentLines(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

// Waiting returns what a run parked on says, for a person: the question
// and how to answer it, as lines, for the command (run, chat) of session
// id, whose flags f the answer needs again (the tools --allow gave, the
// agent), so that the run goes on with the tools it had.
func Waiting(w runner.Waiting, id string, f AgentFlags) []string {
	again := ""
	if f.Agent != "" {
		again += " --agent " + shellWord(f.Agent)
	}
	for _, a := range f.Allow {
		again += " --allow " + shellWord(a)
	}
	return []string{
		"the agent asks:\n" + indentLines(Printable(w.Question), "  "),
		fmt.Sprintf("the run waits for your answer: offshoot sessions answer %s \"YOUR ANSWER\"%s", Printable(id), again),
	}
}

// shellWord quotes s for a shell when it holds more than letters, digits
// and -_=.,/:
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,/:", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(Printable(s), "'", `'\''`) + "'"
}

// NoteWaiting records in the stored session id whether it waits for an
// answer, for sessions list; a failure is a warning.
func (e *Env) NoteWaiting(ctx context.Context, id string, waiting bool) {
	if e.Stored == nil {
		return
	}
	h, err := e.Stored.Header(ctx, id)
	if err != nil {
		e.Warn("cannot note in session %s of %s that it waits: %v", Printable(id), e.Stored.Where, err)
		return
	}
	if _, was := h.Tags[waitingTag]; was == waiting {
		return
	}
	tags := map[string]string{}
	for k, v := range h.Tags {
		tags[k] = v
	}
	if waiting {
		tags[waitingTag] = "1"
	} else {
		delete(tags, waitingTag)
	}
	if err := e.Stored.SetTags(ctx, id, tags); err != nil {
		e.Warn("cannot note in session %s of %s that it waits: %v", Printable(id), e.Stored.Where, err)
	}
}
