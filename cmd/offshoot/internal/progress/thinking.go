package progress

import (
	"strings"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/runner"
)

// A model's reasoning (extended thinking) is shown dimmed, below its
// turn's line and before the turn's text, whole lines at a time: it is
// gathered as it streams and shown when the text begins or the turn ends.

// addThinking gathers a piece of reasoning, up to maxTurnText a turn.
func (t *tree) addThinking(e runner.Delta) {
	b := t.thinking[e.SessionID]
	if b == nil {
		b = &strings.Builder{}
		t.thinking[e.SessionID] = b
	}
	if b.Len() < maxTurnText {
		b.WriteString(e.Thinking[:min(len(e.Thinking), maxTurnText-b.Len())])
	}
}

// showThinking prints the reasoning gathered for session's turn, dimmed
// and marked "∴", and forgets it.
func (t *tree) showThinking(session string, turn int) {
	b := t.thinking[session]
	if b == nil || strings.TrimSpace(b.String()) == "" {
		delete(t.thinking, session)
		return
	}
	text := b.String()
	delete(t.thinking, session)
	t.closeLine()
	t.openTurn(session, turn)
	p := t.prefix(session, true) + t.paint(dim, "∴") + " "
	w := columns.Width(p)
	for _, para := range strings.Split(cli.Printable(strings.TrimSpace(text)), "\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		for _, l := range columns.Wrap(strings.TrimSpace(para), t.width-w) {
			t.line(p + t.paint(dim, l))
			p = strings.Repeat(" ", w)
		}
	}
}
