package cli

import (
	"context"
	"maps"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/store"
)

// What run and chat keep of a session in its tags, for sessions list:
// its kind (run or chat), its first question, and, set after each
// question answered, how many were and the tokens they spent.
const (
	kindTag     = "offshoot.kind"
	questionTag = "offshoot.question"
	turnsTag    = "offshoot.turns"
	tokensTag   = "offshoot.tokens"
	// waitingTag is set while the session waits for a person's answer
	// (see NoteWaiting).
	waitingTag = "offshoot.waiting"
	// agentTag marks a subagent's session, and descriptionTag holds what
	// it was asked (see package subagent).
	agentTag       = "offshoot.agent"
	descriptionTag = "offshoot.agent.description"
)

// maxQuestion bounds the characters of the first question kept.
const maxQuestion = 200

// Summary is what sessions list shows of a session.
type Summary struct {
	// Kind is "run" or "chat" for the sessions those made, "agent" for a
	// subagent's, "" when unknown (a session another program made).
	Kind string
	// Question is the first question asked (a subagent's description),
	// on one line, cut short;
	// Turns how many questions were answered, and Tokens what they
	// spent, the agents they started included.
	Question string
	Turns    int
	Tokens   int64
	// Waiting is set while the session waits for a person's answer
	// ('offshoot sessions answer').
	Waiting bool
}

// Summarize reads what run and chat kept in h's tags. A store's tags are
// untrusted: a count that is not one reads as 0, and the question is
// printed with Printable.
func Summarize(h store.Header) Summary {
	s := Summary{Kind: h.Tags[kindTag], Question: oneLine(h.Tags[questionTag]), Waiting: h.Tags[waitingTag] != ""}
	if _, ok := h.Tags[agentTag]; ok {
		// Its parent's counts came with its parent's tags.
		return Summary{Kind: "agent", Question: oneLine(h.Tags[descriptionTag])}
	}
	if n, err := strconv.Atoi(h.Tags[turnsTag]); err == nil && n > 0 {
		s.Turns = n
	}
	if n, err := strconv.ParseInt(h.Tags[tokensTag], 10, 64); err == nil && n > 0 {
		s.Tokens = n
	}
	return s
}

// ForkTags returns the tags of a session forked from one tagged so: the
// same but its counts, which were its parent's at its end, not at the
// fork; a fork counts its own questions.
func ForkTags(tags map[string]string) map[string]string {
	tags = maps.Clone(tags)
	delete(tags, turnsTag)
	delete(tags, tokensTag)
	delete(tags, waitingTag) // a fork at an earlier seq waits for nothing
	return tags
}

// sessionTags returns the tags a new session of command (run or chat)
// starts with: the owner's token, its kind, and the task of run.
func (e *Env) sessionTags(command, task string) map[string]string {
	tags := map[string]string{kindTag: command}
	if e.owner != "" {
		tags[OwnerTag] = e.owner
	}
	if task != "" {
		tags[questionTag] = oneLine(task)
	}
	return tags
}

// NoteTurn records, in the stored session id, a question answered
// (question, when it is the session's first) that spent tokens: what
// sessions list shows of it. It is one small write after a question,
// against the model calls of the question; a failure is a warning, as
// the session itself is stored.
func (e *Env) NoteTurn(ctx context.Context, id, question string, tokens int64) {
	if e.Stored == nil {
		return
	}
	h, err := e.Stored.Header(ctx, id)
	if err != nil {
		e.Warn("cannot note the question in session %s of %s: %v", Printable(id), e.Stored.Where, err)
		return
	}
	tags := maps.Clone(h.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	s := Summarize(h)
	if tags[questionTag] == "" && strings.TrimSpace(question) != "" {
		tags[questionTag] = oneLine(question)
	}
	tags[turnsTag] = strconv.Itoa(s.Turns + 1)
	tags[tokensTag] = strconv.FormatInt(s.Tokens+max(tokens, 0), 10)
	if err := e.Stored.SetTags(ctx, id, tags); err != nil {
		e.Warn("cannot note the question in session %s of %s: %v", Printable(id), e.Stored.Where, err)
	}
}

// oneLine returns text on one line, its runs of white space one space,
// cut to maxQuestion characters.
func oneLine(text string) string {
	line := strings.Join(strings.Fields(text), " ")
	if r := []rune(line); len(r) > maxQuestion {
		return string(r[:maxQuestion-1]) + "…"
	}
	return line
}
