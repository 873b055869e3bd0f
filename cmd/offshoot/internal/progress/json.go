package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/bus"
)

// Line is one event as JSON prints it.
type Line struct {
	// Seq is the event's place in its session's log (from 1, in commit
	// order); left out for an event that is told only, such as a piece of
	// streamed text or a subagent's start.
	Seq  uint64    `json:"seq,omitempty"`
	Time time.Time `json:"time"`
	// SessionID is the session the event is about: the one it was
	// dispatched to, or, for an event told to observers only, the
	// event's own session_id — the evaluation's session for a piece of
	// streamed text (runner.Delta), the child's for a subagent's start
	// and end, the session that started a background task for its
	// notification. Empty only for an event that names no session.
	SessionID string `json:"session_id"`
	// Type names the event's Go type, such as "runner.ToolInvoked".
	Type string `json:"type"`
	// Event is the event itself; Error says why it could not be encoded.
	Event json.RawMessage `json:"event,omitempty"`
	Error string          `json:"error,omitempty"`
}

// JSON writes every event of b to w as a JSON line (a Line) until stop is
// called.
func JSON(b *bus.Bus, w io.Writer) (stop func()) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return b.SubscribeAll("offshoot.progress.json", func(_ context.Context, env bus.Envelope) error {
		l := Line{Seq: env.Seq, Time: env.Time, SessionID: env.SessionID, Type: strings.TrimPrefix(fmt.Sprintf("%T", env.Payload), "*")}
		var event bytes.Buffer
		payload := json.NewEncoder(&event)
		payload.SetEscapeHTML(false)
		if err := payload.Encode(env.Payload); err != nil {
			l.Error = "cannot encode the event: " + err.Error()
		} else {
			l.Event = bytes.TrimSuffix(event.Bytes(), []byte("\n"))
			if id := gjson.GetBytes(l.Event, "session_id"); l.SessionID == "" && id.Type == gjson.String {
				l.SessionID = id.Str
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(l)
	})
}
