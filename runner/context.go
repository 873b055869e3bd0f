package runner

import (
	"context"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
)

// defaultThreshold is the share of the usable window a request may fill
// before the runner makes room.
const defaultThreshold = 0.8

// defaultKeepTurns is how many model turns a compaction keeps verbatim.
const defaultKeepTurns = 2

// ContextOptions say how an evaluation keeps its conversation within its
// model's context window (Request.Context). The zero value compacts
// automatically, at 80% of the window less the answer's reserve, and
// clears no tool results.
//
// Before each model call the runner knows the request's size without
// asking anyone: the tokens the provider reported for the last request
// plus a count of what was added since. Over the threshold it first
// clears old tool results (ClearToolResults), then, if that is not
// enough, compacts: a summary turn on SummaryModel replaces all but the
// last KeepTurns turns, and a Compacted record says so. Every message
// stays recorded; only what is sent changes. A provider's context-length
// error (model.ErrContextLength) leads to one compaction and one retry.
type ContextOptions struct {
	// Window is the model's context window in tokens; 0 takes the model's
	// own (model.Describe: its configured "context_window"), else its
	// family's (model.DefaultContextWindow).
	Window int
	// MaxOutput is the tokens kept free for the answer; 0 takes the
	// model's, as Window does.
	MaxOutput int
	// Threshold is the share of Window less MaxOutput a request may fill
	// before the runner makes room (0.8 when 0).
	Threshold float64
	// Manual turns the automatic clearing and compaction off: the
	// conversation is compacted only on demand (Compact) and, on a
	// provider's context-length error, once before one retry.
	Manual bool
	// KeepTurns is how many of the last model turns (each with the user
	// message before it and its tool results) a compaction keeps as they
	// are (2 when 0). A tool call and its result are never separated.
	KeepTurns int
	// ClearToolResults, when above 0, sends the results of the tool calls
	// older than that many model turns as a short placeholder naming the
	// tool, once a request is over the threshold: all of them up to one
	// boundary at once, so that the requests that follow share their
	// opening with each other (and the provider's prompt cache serves it)
	// until the next step. 0 clears nothing.
	ClearToolResults int
	// SummaryModel writes the summaries, the light model usually;
	// Request.Model when nil.
	SummaryModel model.Model
	// Prompt is the summary turn's system prompt, rendered with a
	// CompactionInfo; CompactPrompt() (offshoot/compact) when nil.
	Prompt *prompt.Prompt
	// PreCompact, when set, is asked before each compaction: it may add
	// guidance for the summary (what to keep), and may refuse an automatic
	// one (proceed false): the request is then sent as it is. A compaction
	// asked for (Compact) or after a provider's context-length error is
	// not refused. A panic in it counts as proceeding without guidance.
	PreCompact func(ctx context.Context, info CompactionInfo) (guidance string, proceed bool)
}

// CompactionInfo describes a compaction about to happen, for
// ContextOptions.PreCompact and the summary prompt's template.
type CompactionInfo struct {
	// SessionID and Evaluation say whose conversation it is.
	SessionID  string
	Evaluation string
	// Trigger is "auto", "overflow" or "manual" (see Compacted.Trigger).
	Trigger string
	// Tokens is the next request's size, Window the model's window.
	Tokens, Window int
	// Guidance is what the caller asked the summary to keep (Compact's,
	// then PreCompact's).
	Guidance string
}

// contextState is an evaluation's view of its window: the limits, the
// latest compaction and clearing, what is sent, and how big it is.
type contextState struct {
	opts            ContextOptions
	window, reserve int
	limit           int // the size over which the runner makes room
	keep            int
	summaryID       string // the summary model's id, for the records

	fold folded
	// sent is what the next model call sends once f is active: the
	// rendered conversation up to sentFrom, and its size in bytes.
	sent      []model.Message
	sentFrom  int
	sentBytes int
	// known is the size in tokens of the first knownAt messages as sent
	// (the provider's count, or the runner's), so that the next request's
	// size costs only a count of the messages after them.
	known, knownAt int
	est            estimator
	lastBytes      int  // the bytes of the last request sent
	retried        bool // a context-length error led to a compaction
}

// setupContext sets the evaluation's limits and reads what the session
// holds of its conversation's compactions and sizes.
func (r *run) setupContext() {
	o := r.req.Context
	cs := &r.cx
	cs.opts = o
	d := model.Describe(r.req.Model)
	fw, fo := model.DefaultContextWindow(d.ID)
	cs.window, cs.reserve = firstPositive(o.Window, d.ContextWindow, fw), firstPositive(o.MaxOutput, d.MaxOutputTokens, fo)
	if cs.reserve >= cs.window {
		cs.reserve = cs.window / 4
	}
	th := o.Threshold
	if th <= 0 || th > 1 {
		th = defaultThreshold
	}
	cs.limit = int(float64(cs.window-cs.reserve) * th)
	cs.keep = o.KeepTurns
	if cs.keep <= 0 {
		cs.keep = defaultKeepTurns
	}
	if cs.opts.SummaryModel == nil {
		cs.opts.SummaryModel = r.req.Model
		cs.summaryID = d.ID
	} else {
		cs.summaryID = model.Describe(cs.opts.SummaryModel).ID
	}
	cs.est = newEstimator(d.ID)
	cs.est.measure(r.resp.Messages)
	snap := r.req.Session.Snapshot()
	cs.fold = foldOf(snap, r.eval)
	cs.known, cs.knownAt = lastSize(snap, r.eval)
	if cs.knownAt > len(r.resp.Messages) {
		cs.known, cs.knownAt = 0, 0
	}
	if cs.fold.active() {
		cs.rebuild(r.resp.Messages)
	}
}

// lastSize returns the latest size the session records of evaluation
// eval's requests (a ContextUsage, recorded after each model call and
// each compaction or clearing): tokens, and the messages they cover.
func lastSize(snap session.Snapshot, eval string) (tokens, messages int) {
	for _, u := range session.SliceOfSnapshot[ContextUsage](snap).Backward() {
		if u.Evaluation == eval {
			return u.Tokens, u.Messages
		}
	}
	return 0, 0
}

func firstPositive(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

// rebuild renders what is sent from scratch, after the fold changed.
func (cs *contextState) rebuild(msgs []model.Message) {
	cs.sent = append(cs.sent[:0:0], msgs[0])
	cs.sentBytes = messageBytes(msgs[0])
	if cs.fold.upto > 0 {
		s := summaryMessage(cs.fold.summary)
		cs.sent = append(cs.sent, s)
		cs.sentBytes += messageBytes(s)
	}
	var n int
	cs.sent, n = appendSent(cs.sent, msgs, 1, cs.fold)
	cs.sentBytes += n
	cs.sentFrom = len(msgs)
}

// request returns the messages the next model call sends; cs.sentBytes
// is then their size in bytes.
func (r *run) request() []model.Message {
	cs, msgs := &r.cx, r.resp.Messages
	if !cs.fold.active() {
		for ; cs.sentFrom < len(msgs); cs.sentFrom++ {
			cs.sentBytes += messageBytes(msgs[cs.sentFrom])
		}
		return msgs
	}
	var n int
	cs.sent, n = appendSent(cs.sent, msgs, cs.sentFrom, cs.fold)
	cs.sentBytes += n
	cs.sentFrom = len(msgs)
	return cs.sent
}

// nextSize returns the next request's size in tokens: the last known size
// and a count of the messages added since. It costs a count of those
// messages only.
func (r *run) nextSize() int {
	cs, msgs := &r.cx, r.resp.Messages
	from := cs.knownAt
	if from == 0 {
		// Nothing known: count what is sent.
		return cs.est.messages(r.request())
	}
	n := cs.known
	if cs.fold.upto > from {
		from = cs.fold.upto
	}
	for i := from; i < len(msgs); i++ {
		n += cs.est.message(msgs[i])
	}
	return n
}

// noteUsage returns the record of the request just sent, of reqBytes
// bytes and estimated at estimate tokens, with its answer: the size of
// the first messages messages.
func (r *run) noteUsage(u model.Usage, messages, reqBytes, estimate int) ContextUsage {
	cs := &r.cx
	rec := ContextUsage{Evaluation: r.eval, Turn: r.resp.Turns, Window: cs.window, Messages: messages}
	if u.InputTokens > 0 {
		cs.est.calibrate(reqBytes, u.InputTokens)
		rec.Tokens = u.InputTokens + u.OutputTokens
	} else {
		rec.Tokens, rec.Estimated = estimate+u.OutputTokens, true
	}
	cs.known, cs.knownAt = rec.Tokens, rec.Messages
	return rec
}
