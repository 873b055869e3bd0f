package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
)

// The triggers of a compaction (Compacted.Trigger).
const (
	triggerAuto     = "auto"
	triggerOverflow = "overflow"
	triggerManual   = "manual"
)

// maxSummaryInputMessage is the most of one message's text the summary
// turn reads: the start of a long tool result says what it was.
const maxSummaryInputMessage = 4 << 10

// maxSummaryTokens bounds the summary's answer.
const maxSummaryTokens = 8192

// compactText is the body of the summary turn's system prompt.
const compactText = `You write the summary that replaces the earlier part of a conversation
between a user and an AI agent, because the conversation no longer fits the
model's context window. The agent carries on from your summary and the latest
messages alone, so keep everything a continuation needs:

- the user's task and requests, in their words where the words matter;
- the decisions made and why, the constraints and preferences stated;
- the files read or changed, by name, and what changed in them;
- the state of the plan: what is done, what is under way, what comes next;
- the errors met, and whether and how they were solved;
- the questions still open.

Leave out greetings, repetition and tool output that no longer matters. Write
plain prose and short lists, with no preamble: your answer is the summary.
{{ if .Guidance }}
The user asks you to keep in particular: {{ .Guidance }}
{{- end }}`

// CompactPrompt returns the prompt a summary turn runs on unless
// ContextOptions.Prompt gives another: offshoot/compact, rendered with a
// CompactionInfo. Register it in a program's prompt.Registry to show or
// override it like any prompt.
func CompactPrompt() *prompt.Prompt { return compactPrompt() }

var compactPrompt = sync.OnceValue(func() *prompt.Prompt {
	p, err := prompt.New("offshoot", "compact", prompt.Markdown[CompactionInfo]("Compaction", compactText))
	if err != nil {
		panic("runner: the compaction prompt: " + err.Error()) // a constant: tested
	}
	return p
})

// ErrNothingToCompact means a compaction was asked for but the
// conversation has no turns older than those a compaction keeps.
var ErrNothingToCompact = errors.New("runner: nothing to compact: the conversation holds no more than the turns a compaction keeps (ContextOptions.KeepTurns)")

// cutPoint returns where a compaction that keeps keep turns cuts msgs:
// at the keep-th last assistant message, moved back over the user
// messages just before it, or 0 when there are not enough turns or the cut
// would not move past the last one.
func (r *run) cutPoint(keep int) int {
	msgs := r.resp.Messages
	i, seen := len(msgs), 0
	for i > 1 && seen < keep {
		i--
		if msgs[i].Role == model.RoleAssistant {
			seen++
		}
	}
	if seen < keep {
		return 0
	}
	for i > 1 && msgs[i-1].Role == model.RoleUser {
		i--
	}
	if i <= max(r.cx.fold.upto, 1) {
		return 0
	}
	return i
}

// compact runs a summary turn over the messages before the last turns
// and records it (Compacted). It reports false, with no error, when an
// automatic compaction had nothing to do or PreCompact refused it.
func (r *run) compact(trigger, guidance string) (*Compacted, error) {
	cs := &r.cx
	cut := 0
	for keep := cs.keep; keep >= 1 && cut == 0; keep-- {
		cut = r.cutPoint(keep)
		if trigger != triggerOverflow {
			break // only to fit at all may it keep fewer turns
		}
	}
	if cut == 0 {
		return nil, ErrNothingToCompact
	}
	before := r.nextSize()
	info := CompactionInfo{SessionID: r.req.Session.ID(), Evaluation: r.eval, Trigger: trigger, Tokens: before, Window: cs.window, Guidance: guidance}
	if cs.opts.PreCompact != nil {
		more, proceed := r.preCompact(info)
		if !proceed && trigger == triggerAuto {
			return nil, nil
		}
		if more = strings.TrimSpace(more); more != "" {
			info.Guidance = strings.TrimSpace(info.Guidance + "\n" + more)
		}
	}
	p := cs.opts.Prompt
	if p == nil {
		p = compactPrompt()
	}
	rd, err := p.Render(info)
	if err != nil {
		return nil, fmt.Errorf("runner: rendering the compaction prompt %s/%s: %w", p.NS(), p.Key(), err)
	}
	req := &model.Request{
		Messages:  []model.Message{model.SystemMessage(rd.Text), model.UserMessage(r.transcript(cut))},
		MaxTokens: min(maxSummaryTokens, cs.reserve),
	}
	reply, err := r.summarize(req)
	if reply != nil {
		r.resp.Usage = r.resp.Usage.Add(reply.Usage)
		r.scope.charge(reply.Usage)
	}
	if err != nil {
		return nil, fmt.Errorf("runner: the summary turn of a compaction failed: %w", err)
	}
	summary := strings.TrimSpace(reply.Message.Content)
	if summary == "" {
		return nil, errors.New("runner: the summary turn of a compaction wrote no summary; try again, or give ContextOptions.SummaryModel another model")
	}
	next := cs.fold
	next.upto, next.summary = cut, summary
	after := r.sizeUnder(next)
	rec := Compacted{Evaluation: r.eval, Upto: cut, Seq: r.req.Session.Snapshot().Seq(), Summary: summary,
		TokensBefore: before, TokensAfter: after, Model: cs.summaryID, Trigger: trigger, Usage: reply.Usage}
	if reply.Model != "" && rec.Model == "" {
		rec.Model = reply.Model
	}
	size := ContextUsage{Evaluation: r.eval, Turn: r.resp.Turns, Tokens: after, Window: cs.window, Messages: len(r.resp.Messages), Estimated: true}
	if err := r.commit(rec, size); err != nil {
		return nil, &recordError{err}
	}
	cs.fold = next
	cs.rebuild(r.resp.Messages)
	cs.known, cs.knownAt = after, len(r.resp.Messages)
	return &rec, nil
}

// sizeUnder counts the tokens of the conversation as f would send it.
func (r *run) sizeUnder(f folded) int {
	return r.cx.est.messages(render(r.resp.Messages, f))
}

// preCompact asks ContextOptions.PreCompact, a panic counting as
// proceeding without guidance.
func (r *run) preCompact(info CompactionInfo) (guidance string, proceed bool) {
	defer func() {
		if p := recover(); p != nil {
			guidance, proceed = "", true
		}
	}()
	return r.cx.opts.PreCompact(r.ctx, info)
}

// summarize calls the summary model, turning a panic into an error.
func (r *run) summarize(req *model.Request) (resp *model.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("the model panicked: %v", p)
		}
	}()
	resp, err = r.cx.opts.SummaryModel.Generate(r.ctx, req)
	if err == nil && resp == nil {
		err = errors.New("the model returned neither a response nor an error")
	}
	return resp, err
}

// transcript writes the messages a compaction replaces, for the summary
// turn: the previous summary, then each message with its role, a long one
// cut. It keeps to half the usable window, dropping the oldest messages
// first when it must.
func (r *run) transcript(cut int) string {
	cs := &r.cx
	budget := int(float64(cs.window-cs.reserve) / 2 * cs.est.bytesPerToken)
	msgs := r.resp.Messages
	parts := make([]string, 0, cut)
	size := 0
	for i := cut - 1; i >= max(cs.fold.upto, 1); i-- {
		part := transcriptEntry(msgs[i])
		if size+len(part) > budget && len(parts) > 0 {
			break
		}
		size += len(part)
		parts = append(parts, part)
	}
	var b strings.Builder
	b.WriteString("Summarize this conversation.\n\n")
	if cs.fold.upto > 0 {
		b.WriteString("[The summary of the turns before]\n" + cs.fold.summary + "\n\n")
	}
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	return b.String()
}

// transcriptEntry is one message of a summary turn's transcript.
func transcriptEntry(m model.Message) string {
	var b strings.Builder
	switch m.Role {
	case model.RoleTool:
		b.WriteString("[Result of " + m.Name + "]\n")
	case model.RoleAssistant:
		b.WriteString("[Assistant]\n")
	case model.RoleUser:
		b.WriteString("[User]\n")
	default:
		b.WriteString("[" + string(m.Role) + "]\n")
	}
	b.WriteString(clipText(m.Content, maxSummaryInputMessage))
	for _, c := range m.ToolCalls {
		b.WriteString("\n(calls " + c.Name + " " + clipText(c.Arguments, maxSummaryInputMessage/4) + ")")
	}
	b.WriteString("\n\n")
	return b.String()
}

// clipText cuts s to about n bytes at a character boundary, saying so.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" […%d bytes more]", len(s)-cut)
}

// clearResults clears the tool results older than the last
// ClearToolResults turns, all at once, when that clears any not cleared
// yet, and records it (ToolResultsCleared).
func (r *run) clearResults(before int) (bool, error) {
	cs := &r.cx
	msgs := r.resp.Messages
	upto, seen := len(msgs), 0
	for upto > 1 && seen < cs.opts.ClearToolResults {
		upto--
		if msgs[upto].Role == model.RoleAssistant {
			seen++
		}
	}
	if seen < cs.opts.ClearToolResults || upto <= cs.fold.cleared {
		return false, nil
	}
	saved := 0
	for i := max(cs.fold.cleared, cs.fold.upto, 1); i < upto; i++ {
		if m := msgs[i]; m.Role == model.RoleTool {
			saved += cs.est.text(m.Content) - cs.est.text(clearedResult(m.Name))
		}
	}
	if saved <= 0 {
		return false, nil
	}
	after := before - saved
	rec := ToolResultsCleared{Evaluation: r.eval, Upto: upto, TokensBefore: before, TokensAfter: after}
	size := ContextUsage{Evaluation: r.eval, Turn: r.resp.Turns, Tokens: after, Window: cs.window, Messages: len(msgs), Estimated: true}
	if err := r.commit(rec, size); err != nil {
		return false, &recordError{err}
	}
	cs.fold.cleared = upto
	cs.rebuild(msgs)
	cs.known, cs.knownAt = after, len(msgs)
	return true, nil
}

// manageContext makes room before a model call whose request is over the
// threshold: clearing old tool results, then compacting if that is not
// enough. An automatic compaction that fails leaves the request as it is
// (the provider may still take it), with a warning; a failure to record
// ends the evaluation.
func (r *run) manageContext() error {
	cs := &r.cx
	if cs.opts.Manual {
		return nil
	}
	size := r.nextSize()
	if size <= cs.limit {
		return nil
	}
	if cs.opts.ClearToolResults > 0 {
		cleared, err := r.clearResults(size)
		if err != nil {
			return err
		}
		if cleared {
			if size = r.nextSize(); size <= cs.limit {
				return nil
			}
		}
	}
	_, err := r.compact(triggerAuto, "")
	if re, ok := errors.AsType[*recordError](err); ok {
		return re
	}
	if err != nil && !errors.Is(err, ErrNothingToCompact) {
		r.req.Logger.Warn("runner: the conversation is over its context threshold and compacting it failed; sending it as it is",
			"session", r.req.Session.ID(), "evaluation", r.eval, "tokens", size, "window", cs.window, "error", err)
	}
	return nil
}

// overflowed handles a provider's context-length error: one compaction,
// after which the loop retries the call. It returns the error to end the
// evaluation with when it cannot.
func (r *run) overflowed(err error) error {
	if r.cx.retried {
		return fmt.Errorf("%w (the request was still too long after compacting the conversation: its last turns alone do not fit; use a model with a larger window, or have the tools return less)", err)
	}
	r.cx.retried = true
	if _, cerr := r.compact(triggerOverflow, ""); cerr != nil {
		if re, ok := errors.AsType[*recordError](cerr); ok {
			return re
		}
		return fmt.Errorf("%w (compacting the conversation to retry failed: %v)", err, cerr)
	}
	return nil
}

// Compact compacts the conversation of the evaluation req.Continue names
// in req.Session now, whatever its size: a summary turn on
// req.Context.SummaryModel (else req.Model) replaces all but its last
// turns, with guidance saying what to keep, and a Compacted record says
// so. The next evaluation that continues it sends the compacted
// conversation. req needs Session, Continue and Model; Prompt and the
// rest are not used. It returns ErrNothingToCompact when the conversation
// holds no more than the turns a compaction keeps.
func Compact(ctx context.Context, req Request, guidance string) (*Compacted, error) {
	if req.Session == nil || req.Model == nil || req.Continue == "" {
		return nil, errors.New("runner: Compact needs a Request with a Session, a Model and the evaluation to compact in Continue")
	}
	if req.Logger == nil {
		req.Logger = discardLogger
	}
	msgs, err := continued(req.Session, req.Continue)
	if err != nil {
		return nil, err
	}
	if err := req.Session.Install(ctx, reducers); err != nil {
		return nil, err
	}
	r := &run{req: req, ctx: ctx, eval: req.Continue, resp: &Response{Evaluation: req.Continue, Messages: msgs}}
	r.scope = &scope{parent: scopeOf(ctx)}
	r.setupContext()
	rec, err := r.compact(triggerManual, strings.TrimSpace(guidance))
	if re, ok := errors.AsType[*recordError](err); ok {
		err = re.err
	}
	return rec, err
}
