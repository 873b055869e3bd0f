package inspector

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/store"
)

// pageBatches is how many batches a session page shows at once.
const pageBatches = 200

// entry is a committed batch as the timeline shows it.
type entry struct {
	Seq, Last        uint64
	Time             time.Time
	Types            []string // the event types, each with its count ("ToolInvoked ×2")
	Tools            []string
	Model            string
	Tokens, Cached   int64
	Duration         time.Duration
	Compacted, Error bool
}

// chatItem is one thing the chat shows: a message, a tool call with its
// result, a mark where the conversation was compacted.
type chatItem struct {
	Seq       uint64
	Role      string
	Text      string
	Thinking  string
	Calls     []call
	Tool      string // a tool message's tool
	Compacted bool
}

// call is a tool call of an assistant message.
type call struct {
	ID, Name, Arguments string
}

// sessionView is what a session's page shows.
type sessionView struct {
	row
	Timeline   []entry
	Chat       []chatItem
	After      uint64 // the seq the page starts after
	Next       string // the next page's link
	Live       bool   // the page shows the end of the log: new batches are added as they commit
	LiveURL    string // where the page listens for them
	Tokens     int64
	Cached     int64
	Error      string
	Actions    bool
	ForkedHere []store.Header
}

// The events of the runner the pages read, by the end of their names
// ("offshoot.runner.ModelCalled", or the Go path of older records).
const (
	messageEvent = "runner.ConversationMessage"
	modelEvent   = "runner.ModelCalled"
	toolEvent    = "runner.ToolInvoked"
)

// storedMessage is a stored runner.ConversationMessage, with what a
// model's thinking may be kept as.
type storedMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	ToolCalls  []call `json:"tool_calls"`
	Thinking   string `json:"thinking"`
	Reasoning  string `json:"reasoning"`
}

// storedModelCall is a stored runner.ModelCalled.
type storedModelCall struct {
	Model         string        `json:"model"`
	ResponseModel string        `json:"response_model"`
	Route         string        `json:"route"`
	Duration      time.Duration `json:"duration"`
	Error         string        `json:"error"`
	Usage         struct {
		Cached int64 `json:"cached_input_tokens"`
		Total  int64 `json:"total_tokens"`
	} `json:"usage"`
}

// storedToolCall is a stored runner.ToolInvoked.
type storedToolCall struct {
	Name     string        `json:"name"`
	Success  bool          `json:"success"`
	Duration time.Duration `json:"duration"`
}

// isCompaction reports whether an event type records a compaction of the
// conversation.
func isCompaction(typ string) bool { return strings.Contains(strings.ToLower(typ), "compact") }

// read folds a batch into the timeline entry and the chat items it shows.
func read(b store.Batch) (entry, []chatItem) {
	e := entry{Seq: b.Seq, Last: b.Last(), Time: b.Time}
	var chat []chatItem
	counts := map[string]int{}
	var order []string
	for i, ev := range b.Events {
		seq := b.Seq + uint64(i)
		short := ev.Type[strings.LastIndexByte(ev.Type, '.')+1:]
		if counts[short] == 0 {
			order = append(order, short)
		}
		counts[short]++
		switch {
		case strings.HasSuffix(ev.Type, messageEvent):
			var m storedMessage
			if json.Unmarshal(ev.Data, &m) != nil {
				continue
			}
			item := chatItem{Seq: seq, Role: m.Role, Text: m.Content, Thinking: m.Thinking + m.Reasoning, Calls: m.ToolCalls}
			if m.Role == "tool" {
				item.Tool = m.Name
			}
			chat = append(chat, item)
		case strings.HasSuffix(ev.Type, modelEvent):
			var m storedModelCall
			if json.Unmarshal(ev.Data, &m) != nil {
				continue
			}
			e.Model = m.Model + orIf(m.Model == "", m.ResponseModel+orIf(m.ResponseModel == "", m.Route))
			e.Tokens += max(m.Usage.Total, 0)
			e.Cached += max(m.Usage.Cached, 0)
			e.Duration += max(m.Duration, 0)
			e.Error = e.Error || m.Error != ""
		case strings.HasSuffix(ev.Type, toolEvent):
			var t storedToolCall
			if json.Unmarshal(ev.Data, &t) != nil {
				continue
			}
			e.Tools = append(e.Tools, t.Name)
			e.Duration += max(t.Duration, 0)
			e.Error = e.Error || !t.Success
		case isCompaction(ev.Type):
			e.Compacted = true
			chat = append(chat, chatItem{Seq: seq, Compacted: true})
		}
	}
	for _, t := range order {
		if n := counts[t]; n > 1 {
			t += " ×" + strconv.Itoa(n)
		}
		e.Types = append(e.Types, t)
	}
	return e, chat
}

func orIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// sessionPage shows a session: its chat beside its timeline, a page of
// batches at a time.
func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.URL.Query().Get("id")
	h, ok := s.header(w, r, id)
	if !ok {
		return
	}
	after, err := seqParam(r, "after", 0)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	v := sessionView{row: summarize(h, time.Now()), After: after, Actions: s.opts.AllowActions}
	last := after
	n := 0
	for b, err := range s.st.Batches(ctx, h.ID, after, 0) {
		if err != nil {
			v.Error = "the log could not be read past seq " + strconv.FormatUint(last, 10) + ": " + err.Error()
			break
		}
		if n == pageBatches {
			v.Next = "/session?id=" + urlQuery(h.ID) + "&after=" + strconv.FormatUint(last, 10)
			break
		}
		e, chat := read(b)
		v.Timeline = append(v.Timeline, e)
		v.Chat = append(v.Chat, chat...)
		v.Tokens += e.Tokens
		v.Cached += e.Cached
		last = b.Last()
		n++
	}
	v.Live = v.Next == "" && v.Error == ""
	v.LiveURL = "/live?id=" + urlQuery(h.ID) + "&after=" + strconv.FormatUint(max(last, h.ForkSeq), 10)
	forks, err := s.st.List(ctx, store.Query{Parent: h.ID, Limit: 100})
	if err == nil {
		v.ForkedHere = forks
		slices.SortFunc(v.ForkedHere, func(a, b store.Header) int { return a.Created.Compare(b.Created) })
	}
	s.render(w, "session.html", v)
}

// header returns the stored session id's header, or answers that it is
// not there.
func (s *Server) header(w http.ResponseWriter, r *http.Request, id string) (store.Header, bool) {
	if id == "" {
		s.fail(w, http.StatusBadRequest, "no session given: add ?id=ID, or pick one on the sessions page")
		return store.Header{}, false
	}
	h, err := s.st.Header(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(w, http.StatusNotFound, "no session "+printable(oneLine(id, 120))+" is stored; pick one on the sessions page")
		return h, false
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "cannot read session "+printable(oneLine(id, 120))+": "+err.Error())
		return h, false
	}
	return h, true
}

// seqParam reads the seq in query parameter name; def when it is absent.
func seqParam(r *http.Request, name string, def uint64) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, errors.New(name + "=" + printable(oneLine(v, 40)) + " is not a seq: give a whole number, 0 or more")
	}
	return n, nil
}
