package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// maxStream bounds what is kept of a command hook's stdout and of its
// stderr, each; the rest is read and dropped.
const maxStream = 1 << 20

// maxText bounds the text of one hook given to the model (its reason or
// its context), as Claude Code cuts a hook's long output.
const maxText = 10_000

// waitDelay is how long a command hook's pipes may stay open after its
// process group was killed (by a process that left the group).
const waitDelay = 2 * time.Second

// passedEnv are the variables of offshoot's environment a command hook
// gets; nothing else of it, so that no model key reaches a hook.
var passedEnv = []string{"PATH", "HOME", "USER", "LANG", "TERM", "TMPDIR", "SHELL"}

// command runs a command hook as Claude Code does: `sh -c COMMAND` in the
// project's directory, in a process group of its own, given in as JSON on
// stdin and a reduced environment, and reads its answer from its exit
// status and output. When it ends, or its time is up, every process left
// in its group is killed, and its output is read to the end: once that
// returns, nothing the hook started in its group is left.
func (h *Hooks) command(ctx context.Context, k Hook, in Input) (Output, error) {
	stdin, err := json.Marshal(in)
	if err != nil {
		return Output{}, fmt.Errorf("encoding the hook's input: %w", err)
	}
	code, stdout, stderr, err := h.exec(ctx, k.Command, stdin)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Output{}, errors.New("it did not finish within its timeout and was stopped")
		}
		return Output{}, ctx.Err()
	}
	if err != nil {
		return Output{}, fmt.Errorf("it could not be run: %w", err)
	}
	switch code {
	case 0:
		return answer(in.Event, stdout)
	case 2:
		return blocked(in.Event, k, stderr), nil
	}
	if code < 0 {
		return Output{}, fmt.Errorf("it was killed by a signal%s", excerpt(stderr))
	}
	return Output{}, fmt.Errorf("it exited with status %d%s", code, excerpt(stderr))
}

// exec runs command with stdin and returns its exit status (-1 when a
// signal ended it) and what it wrote, each stream kept up to maxStream.
// Its pipes are the process's own files, so that the hook's end is seen
// when its shell exits, whatever it left running; then its group is
// killed, and the pipes read until every process holding them is gone
// (waitDelay at most, for one that left the group).
func (h *Hooks) exec(ctx context.Context, command string, stdin []byte) (code int, stdout, stderr string, err error) {
	var files []*os.File // every end, closed at the end
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return 0, "", "", err
	}
	outR, outW, err := pipe()
	if err != nil {
		return 0, "", "", err
	}
	errR, errW, err := pipe()
	if err != nil {
		return 0, "", "", err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir, cmd.Env = h.Dir, h.environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownSession(cmd)
	if err := ctx.Err(); err != nil {
		return 0, "", "", err
	}
	if err := cmd.Start(); err != nil {
		return 0, "", "", err
	}
	_, _, _ = inR.Close(), outW.Close(), errW.Close() // the hook's ends

	var outBuf, errBuf capped
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		_, _ = inW.Write(stdin) // a hook need not read it
		_ = inW.Close()
	}()
	go func() { defer wg.Done(); _, _ = io.Copy(&outBuf, outR) }()
	go func() { defer wg.Done(); _, _ = io.Copy(&errBuf, errR) }()

	exited := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			_ = killGroup(cmd)
		case <-exited:
		}
	}()
	werr := cmd.Wait()
	close(exited)
	<-watched
	_ = killGroup(cmd) // what the hook left running in its group

	read := make(chan struct{})
	go func() { wg.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(waitDelay): // a process outside the group holds a pipe
		_, _, _ = inW.Close(), outR.Close(), errR.Close()
		<-read
	}
	var exit *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &exit):
		code = exit.ExitCode()
	default:
		return 0, "", "", werr
	}
	return code, outBuf.String(), errBuf.String(), nil
}

// environ is a command hook's environment: passedEnv from offshoot's,
// the project's directory as CLAUDE_PROJECT_DIR and OFFSHOOT_PROJECT_DIR,
// and the settings' Env, model keys left out.
func (h *Hooks) environ() []string {
	env := make([]string, 0, len(passedEnv)+2+len(h.Env))
	for _, name := range passedEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	if h.Dir != "" {
		env = append(env, "CLAUDE_PROJECT_DIR="+h.Dir, "OFFSHOOT_PROJECT_DIR="+h.Dir)
	}
	for name, v := range h.Env {
		if validEnvName(name) && !modelKey(name) {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// modelKey reports whether an environment variable's name is one a model
// key or endpoint lives in (…_API_KEY, OPENAI_…, ANTHROPIC_…, LLM_…,
// LIGHT_LLM_…), which a hook is never given.
func modelKey(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasSuffix(upper, "_API_KEY") || upper == "API_KEY" {
		return true
	}
	for _, p := range []string{"OPENAI_", "ANTHROPIC_", "LLM_", "LIGHT_LLM_"} {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// validEnvName reports whether name can be an environment variable's
// name: letters, digits and underscores, not beginning with a digit.
func validEnvName(name string) bool {
	if name == "" || len(name) > 256 {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// answer reads the stdout of a hook that exited 0: its JSON answer, or,
// for UserPromptSubmit and SessionStart, plain text added for the model.
// Other plain output is not read, as Claude Code only shows it in its
// transcript.
func answer(ev Event, stdout string) (Output, error) {
	text := strings.TrimSpace(stdout)
	if text == "" {
		return Output{}, nil
	}
	if strings.HasPrefix(text, "{") {
		var out Output
		err := out.unmarshal(ev, []byte(text))
		if err == nil {
			return out, nil
		}
		if ev != UserPromptSubmit && ev != SessionStart {
			return Output{}, err
		}
	}
	if ev == UserPromptSubmit || ev == SessionStart {
		return Output{AdditionalContext: truncate(text, maxText)}, nil
	}
	return Output{}, nil
}

// blocked is the answer of a hook that exited 2: what the event is about
// is blocked, with stderr as the reason the model reads — for PreToolUse,
// the call is denied. Events that cannot be blocked show stderr to the
// user instead.
func blocked(ev Event, k Hook, stderr string) Output {
	reason := truncate(strings.TrimSpace(stderr), maxText)
	if reason == "" {
		reason = fmt.Sprintf("the %s hook %q refused without saying why", ev, truncate(k.Command, 200))
	}
	switch ev {
	case PreToolUse:
		return Output{PermissionDecision: Deny, PermissionDecisionReason: reason}
	case PostToolUse, UserPromptSubmit, Stop, SubagentStop, PreCompact:
		return Output{Block: true, Reason: reason}
	}
	return Output{SystemMessage: reason}
}

// commandAnswer is a command hook's JSON answer, as Claude Code reads it.
type commandAnswer struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	// AdditionalContext outside hookSpecificOutput is read too: hooks
	// written for older releases print it there.
	AdditionalContext string `json:"additionalContext"`
	Specific          *struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// unmarshal reads a command hook's JSON answer to event ev into o.
// JSON that is not an object, a hookSpecificOutput for another event, an
// unknown decision, or an updatedInput that is not an object is an error:
// the hook is then taken as having failed without blocking.
func (o *Output) unmarshal(ev Event, data []byte) error {
	var a commandAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return fmt.Errorf("its output is not a JSON answer: %v", err)
	}
	var out Output
	if a.Continue != nil && !*a.Continue {
		out.Stop, out.StopReason = true, a.StopReason
	}
	out.SystemMessage = a.SystemMessage
	switch a.Decision {
	case "":
	case "block":
		if ev == PreToolUse { // the older form of a denial
			out.PermissionDecision, out.PermissionDecisionReason = Deny, a.Reason
		} else {
			out.Block, out.Reason = true, a.Reason
		}
	case "approve":
		if ev != PreToolUse {
			return fmt.Errorf("its answer's decision %q is for PreToolUse hooks only", a.Decision)
		}
		out.PermissionDecision, out.PermissionDecisionReason = Allow, a.Reason
	default:
		return fmt.Errorf("its answer's decision %q is neither \"block\" nor \"approve\"", truncate(a.Decision, 40))
	}
	out.AdditionalContext = a.AdditionalContext
	if s := a.Specific; s != nil {
		if s.HookEventName != "" && s.HookEventName != string(ev) {
			return fmt.Errorf("its answer's hookSpecificOutput is for %q, not %s", truncate(s.HookEventName, 40), ev)
		}
		switch s.PermissionDecision {
		case "":
		case Allow, Deny, Ask:
			if ev != PreToolUse {
				return fmt.Errorf("its answer's permissionDecision is for PreToolUse hooks only")
			}
			out.PermissionDecision, out.PermissionDecisionReason = s.PermissionDecision, s.PermissionDecisionReason
		default:
			return fmt.Errorf("its answer's permissionDecision %q is not allow, deny or ask", truncate(s.PermissionDecision, 40))
		}
		if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
			if ev != PreToolUse {
				return fmt.Errorf("its answer's updatedInput is for PreToolUse hooks only")
			}
			if !bytes.HasPrefix(bytes.TrimSpace(s.UpdatedInput), []byte("{")) {
				return errors.New("its answer's updatedInput is not a JSON object of the tool's arguments")
			}
			out.UpdatedInput = bytes.Clone(s.UpdatedInput)
		}
		if s.AdditionalContext != "" {
			out.AdditionalContext = s.AdditionalContext
		}
	}
	out.Reason = truncate(out.Reason, maxText)
	out.PermissionDecisionReason = truncate(out.PermissionDecisionReason, maxText)
	out.AdditionalContext = truncate(out.AdditionalContext, maxText)
	*o = out
	return nil
}

// excerpt is ": " and the start of a failed hook's stderr, for the user,
// or "" when it wrote nothing.
func excerpt(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	return ": " + truncate(s, 1000)
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// capped keeps the first maxStream bytes written to it and drops the
// rest, so that a hook that writes without end costs bounded memory.
type capped struct{ buf bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxStream - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String returns what was kept.
func (c *capped) String() string { return c.buf.String() }
