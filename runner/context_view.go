package runner

import (
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
)

// summaryIntro starts the message that stands for the compacted turns.
const summaryIntro = "This conversation was compacted to fit the context window: the earlier turns are summarized below. Carry on from the summary and the messages that follow it.\n\n<summary>\n"

// summaryMessage is the user message a compaction's summary is sent as.
func summaryMessage(summary string) model.Message {
	return model.UserMessage(summaryIntro + summary + "\n</summary>")
}

// clearedResult is the text sent instead of a cleared tool result.
func clearedResult(name string) string {
	if name == "" {
		name = "a tool"
	} else {
		name = "the tool '" + name + "'"
	}
	return "[The result of " + name + " was cleared to save context; call it again if you need the result.]"
}

// folded is the latest compaction and clearing of one evaluation: what
// turns its recorded conversation into what its model calls send.
type folded struct {
	upto    int    // the messages the summary stands for; 0 for none
	summary string // the latest compaction's
	cleared int    // tool results among the first cleared messages are placeholders
}

// active reports whether f changes anything.
func (f folded) active() bool { return f.upto > 0 || f.cleared > 0 }

// foldOf returns the latest compaction and clearing of evaluation eval in
// snap. It reads the two slices backwards and stops at the first match.
func foldOf(snap session.Snapshot, eval string) folded {
	var f folded
	for _, c := range session.SliceOfSnapshot[Compacted](snap).Backward() {
		if c.Evaluation == eval {
			f.upto, f.summary = c.Upto, c.Summary
			break
		}
	}
	for _, c := range session.SliceOfSnapshot[ToolResultsCleared](snap).Backward() {
		if c.Evaluation == eval {
			f.cleared = c.Upto
			break
		}
	}
	return f
}

// appendSent appends to out msgs[from:] as they are sent under f: the
// messages the summary stands for are left out, cleared results are
// placeholders. It returns out and the bytes appended.
func appendSent(out []model.Message, msgs []model.Message, from int, f folded) ([]model.Message, int) {
	if f.upto > from {
		from = f.upto
	}
	n := 0
	for i := from; i < len(msgs); i++ {
		m := msgs[i]
		if i < f.cleared && m.Role == model.RoleTool {
			m.Content = clearedResult(m.Name)
		}
		n += messageBytes(m)
		out = append(out, m)
	}
	return out, n
}

// render returns msgs — an evaluation's conversation, system message
// first — as its model calls send it under f: the system message, the
// summary, then the messages from f.upto on, cleared results replaced. It
// returns msgs itself when f changes nothing.
func render(msgs []model.Message, f folded) []model.Message {
	if !f.active() || len(msgs) == 0 {
		return msgs
	}
	out := make([]model.Message, 0, len(msgs)-max(f.upto-2, 0))
	out = append(out, msgs[0])
	if f.upto > 0 {
		out = append(out, summaryMessage(f.summary))
	}
	out, _ = appendSent(out, msgs, 1, f)
	return out
}

// AsSent returns msgs — the first messages of the conversation of the
// evaluation with the given id, as Conversation returns them — as that
// evaluation's model calls sent them, by what snap records: after a
// compaction (Compacted), the system message, the summary, then the
// messages it did not replace; with cleared tool results
// (ToolResultsCleared), placeholders for them. Tool calls left without a
// result are left out as Request.Continue leaves them. A program that
// carries a conversation on in another evaluation (a fork that shares its
// caller's prompt cache) sends it this way, so that its opening is the
// caller's, byte for byte.
func AsSent(snap session.Snapshot, evaluation string, msgs []model.Message) []model.Message {
	msgs = repairToolCalls(append([]model.Message(nil), msgs...))
	return render(msgs, foldOf(snap, evaluation))
}

// messageBytes is the size of m's text, its calls' and their arguments'.
func messageBytes(m model.Message) int {
	n := len(m.Content)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}
