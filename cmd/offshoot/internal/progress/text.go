package progress

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/runner"
)

// The text the models stream: bounded per turn, opened by its turn's
// line, and for the main agent printed as it comes, a word at a time.

// turnKey names one model turn of one session.
type turnKey struct {
	session string
	turn    int
}

// maxTurnText bounds the streamed text shown of one model turn: a model
// that streams megabytes does not flood the terminal; the session keeps
// the whole answer.
const maxTurnText = 64 << 10

// within cuts text to what may still be shown of its turn, and reports
// whether this piece reached the bound (the note is then due).
func (t *tree) within(e runner.Delta) (text string, reached bool) {
	k := turnKey{e.SessionID, e.Turn}
	n := t.shown[k]
	if n >= maxTurnText {
		return "", false
	}
	text = e.Text
	if n+len(text) >= maxTurnText {
		cut := maxTurnText - n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text, reached = text[:cut], true
		t.shown[k] = maxTurnText
		return text, reached
	}
	t.shown[k] = n + len(text)
	return text, false
}

// cutNote is shown where a turn's text reached maxTurnText.
const cutNote = "… (the rest of this answer is not shown here: more than 64 KiB; the session keeps it whole)"

func (t *tree) delta(e runner.Delta) {
	if e.Thinking != "" {
		t.addThinking(e)
	}
	if e.Text == "" {
		return
	}
	t.showThinking(e.SessionID, e.Turn)
	text, reached := t.within(e)
	if reached {
		text += "\n" + cutNote + "\n"
	}
	if text == "" {
		return
	}
	if _, isChild := t.agents[e.SessionID]; isChild {
		b := t.text[e.SessionID]
		if b == nil {
			b = &strings.Builder{}
			t.text[e.SessionID] = b
		}
		b.WriteString(text)
		if strings.Contains(text, "\n") {
			t.flush(e.SessionID, e.Turn, false)
		}
		return
	}
	// The main agent's text streams as it comes, below its turn's line.
	if strings.TrimSpace(text) != "" {
		t.openTurn(e.SessionID, e.Turn)
	}
	for i, piece := range strings.Split(cli.Printable(text), "\n") {
		if i > 0 {
			t.closeLine()
		}
		for _, r := range piece {
			t.stream(r)
		}
	}
}

// openTurn prints the line that opens a model turn of session's, once,
// before the first text the turn writes.
func (t *tree) openTurn(session string, turn int) {
	if n, ok := t.headed[session]; ok && n == turn {
		return
	}
	t.headed[session] = turn
	t.head(session, "model turn %d", turn)
}

// stream adds r to the main agent's streamed line. Words are printed
// whole, so that a line too long for the terminal breaks between words.
func (t *tree) stream(r rune) {
	if r != ' ' && r != '\t' {
		t.word.WriteRune(r)
		if t.width > 0 && columns.Width(t.word.String()) >= t.width-textIndent {
			t.printWord()
		}
		return
	}
	t.printWord()
	t.gap = t.open
}

// textIndent is the columns before the main agent's text: "  ✎ ".
const textIndent = 4

// printWord prints the word the main agent's line holds back, after a
// space on this line, or on the next line when it does not fit.
func (t *tree) printWord() {
	if t.word.Len() == 0 {
		return
	}
	w := columns.Width(t.word.String())
	switch {
	case !t.open:
		fmt.Fprint(t.w, "  "+t.paint(dim, "✎")+" ")
		t.open, t.col = true, textIndent
	case t.width > 0 && t.col+1+w > t.width:
		fmt.Fprint(t.w, "\n"+strings.Repeat(" ", textIndent))
		t.col = textIndent
	case t.gap:
		fmt.Fprint(t.w, " ")
		t.col++
	}
	t.gap = false
	fmt.Fprint(t.w, t.word.String())
	t.col += w
	t.word.Reset()
}
