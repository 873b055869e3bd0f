package scripted

import (
	"context"
	"errors"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/model"
)

// Chunking says how a scripted answer is streamed: in which pieces its
// text and each tool call's arguments are delivered, and how fast. The zero
// value streams word by word without pauses.
type Chunking struct {
	// Size is the most bytes one piece carries; a piece never splits a
	// UTF-8 character. 0 cuts at words instead: each piece is a word with
	// the white space before it.
	Size int
	// Delay is the pause before every piece after the first, to show
	// streaming in a demo; 0 means none. A pause ends early when the
	// context is done, and Stream returns.
	Delay time.Duration
}

// SetChunking sets how m streams its answers (see Stream). It is safe to
// call at any time; calls already streaming keep the chunking they began
// with.
func (m *Model) SetChunking(c Chunking) {
	m.mu.Lock()
	m.chunking = c
	m.mu.Unlock()
}

// Stream answers req as Generate does, delivering the answer to fn in
// pieces cut as SetChunking says (word by word by default): the text, then
// each tool call — its id and name with the first piece of its arguments.
// The same script gives the same pieces every time. The call is logged
// (Calls) with the complete response; when ctx ends or fn fails midway,
// Stream returns, and logs, what was delivered with the error.
func (m *Model) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	if req == nil {
		return nil, errStreamNeedsRequest
	}
	rec, route, resp, err := m.answer(ctx, req)
	if err != nil {
		if rec != nil {
			m.record(Call{Request: rec, Err: err, Route: route})
		}
		return nil, err
	}
	m.mu.Lock()
	c := m.chunking
	m.mu.Unlock()
	out, err := play(ctx, resp, c, fn)
	m.record(Call{Request: rec, Response: out.Clone(), Err: err, Route: route})
	return out, err
}

// play delivers resp to fn in pieces. It returns resp, or on an error what
// was delivered of it (nil if nothing) with the error.
func play(ctx context.Context, resp *model.Response, c Chunking, fn func(model.Delta) error) (*model.Response, error) {
	if fn == nil {
		fn = func(model.Delta) error { return nil }
	}
	p := player{ctx: ctx, c: c, fn: fn, resp: resp}
	for piece := range pieces(resp.Message.Content, c.Size) {
		if err := p.wait(); err != nil {
			return p.partial(), err
		}
		p.text += len(piece)
		if err := p.send(model.Delta{Text: piece}); err != nil {
			return p.partial(), err
		}
	}
	for i, call := range resp.Message.ToolCalls {
		first := true
		for piece := range pieces(call.Arguments, c.Size) {
			if err := p.wait(); err != nil {
				return p.partial(), err
			}
			d := &model.ToolCallDelta{Index: i, Arguments: piece}
			if first {
				d.ID, d.Name, first = call.ID, call.Name, false
				p.args = append(p.args, 0)
			}
			p.args[i] += len(piece)
			if err := p.send(model.Delta{ToolCall: d}); err != nil {
				return p.partial(), err
			}
		}
		if first { // no arguments: the id and name alone
			if err := p.wait(); err != nil {
				return p.partial(), err
			}
			p.args = append(p.args, 0)
			if err := p.send(model.Delta{ToolCall: &model.ToolCallDelta{Index: i, ID: call.ID, Name: call.Name}}); err != nil {
				return p.partial(), err
			}
		}
	}
	return resp, nil
}

// player delivers pieces, pausing between them, and keeps count of what
// was delivered: text and args are byte counts of resp's text and of each
// started call's arguments.
type player struct {
	ctx  context.Context
	c    Chunking
	fn   func(model.Delta) error
	resp *model.Response
	sent int
	text int
	args []int
}

// wait pauses before every piece but the first, and reports whether ctx
// is done.
func (p *player) wait() error {
	if p.sent > 0 && p.c.Delay > 0 {
		t := time.NewTimer(p.c.Delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	return p.ctx.Err()
}

// send hands d to fn; d counts as delivered even when fn fails.
func (p *player) send(d model.Delta) error {
	p.sent++
	return p.fn(d)
}

// partial is what was delivered of the answer, or nil when nothing was.
func (p *player) partial() *model.Response {
	if p.sent == 0 {
		return nil
	}
	msg := model.Message{Role: p.resp.Message.Role, Content: p.resp.Message.Content[:p.text]}
	for i, n := range p.args {
		c := p.resp.Message.ToolCalls[i]
		msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments[:n]})
	}
	return &model.Response{Message: msg, Model: p.resp.Model}
}

// pieces yields s in pieces of at most size bytes, never splitting a UTF-8
// character, or word by word when size is 0. An empty s yields nothing.
func pieces(s string, size int) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for s != "" {
			n := 0
			if size > 0 {
				n = min(size, len(s))
				for n < len(s) && !utf8.RuneStart(s[n]) {
					n-- // back to the start of the character cut
				}
				if n == 0 { // a character longer than size
					_, n = utf8.DecodeRuneInString(s)
				}
			} else {
				n = wordEnd(s)
			}
			if !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
	}
}

// wordEnd returns the length of the leading white space and word of s.
func wordEnd(s string) int {
	i, inWord := 0, false
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		space := unicode.IsSpace(r)
		if inWord && space {
			break
		}
		inWord = inWord || !space
		i += w
	}
	return i
}

var errStreamNeedsRequest = errors.New("scripted: Stream needs a request")
