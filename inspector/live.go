package inspector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// liveBatches bounds the batches one live message carries.
const liveBatches = 50

// liveUpdate is one server-sent event of a live session page: the
// timeline entries and chat items of the batches committed since the
// last, as HTML the page adds, and the seq they end at.
type liveUpdate struct {
	Timeline string `json:"timeline"`
	Chat     string `json:"chat"`
	Seq      uint64 `json:"seq"`
}

// live streams, as server-sent events, the batches session id commits
// after seq after, as they commit: it checks the session's header (one
// small read) every poll interval, and reads the new batches when its seq
// moved.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	after, err := seqParam(r, "after", h.Seq)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, http.StatusInternalServerError, "this server cannot stream; the live page needs one that can")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": live\n\n")
	flusher.Flush()
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	for {
		if h, err := s.st.Header(ctx, h.ID); err == nil && h.Seq > after {
			u, err := s.update(r, h.ID, after)
			if err != nil {
				return // the page reconnects, from its last seq
			}
			if u.Seq > after {
				b, _ := json.Marshal(u)
				fmt.Fprintf(w, "data: %s\n\n", b)
				flusher.Flush()
				after = u.Seq
				continue // more may be waiting
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// update renders the batches of session id after seq after.
func (s *Server) update(r *http.Request, id string, after uint64) (liveUpdate, error) {
	u := liveUpdate{Seq: after}
	var v sessionView
	n := 0
	for b, err := range s.st.Batches(r.Context(), id, after, 0) {
		if err != nil {
			return u, err
		}
		e, chat := read(b)
		v.Timeline, v.Chat = append(v.Timeline, e), append(v.Chat, chat...)
		u.Seq = b.Last()
		if n++; n == liveBatches {
			break
		}
	}
	v.ID = id
	var tl, ch bytes.Buffer
	if err := s.pages.ExecuteTemplate(&tl, "timeline", page{V: v}); err != nil {
		return u, err
	}
	if err := s.pages.ExecuteTemplate(&ch, "chat", page{V: v}); err != nil {
		return u, err
	}
	u.Timeline, u.Chat = tl.String(), ch.String()
	return u, nil
}
