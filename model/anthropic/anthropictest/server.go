// Package anthropictest provides a local server that speaks Anthropic's
// Messages API and bills like it, for tests, benchmarks and examples that
// must run without the network or a key.
//
// It answers from a script (Server.Answer), streamed or whole, and counts
// usage the way Anthropic does: the prefix of a request up to one of its
// cache breakpoints (tools, then system, then messages, each block
// without its cache_control) is a cache read when an earlier request
// wrote exactly those bytes within the time to live, and a cache write
// otherwise; a prefix under MinCacheTokens is not cached. Tokens are
// estimated as bytes/4.
package anthropictest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// Turn is one scripted answer: thinking, text and tool calls, or an error.
type Turn struct {
	// Thinking, when set, is sent first as a thinking block with a
	// signature the server checks when the block comes back.
	Thinking string
	// Text is the answer's text.
	Text string
	// ToolCalls are tool_use blocks; their Arguments must be a JSON
	// object.
	ToolCalls []model.ToolCall
	// StopReason is the stop_reason; end_turn, or tool_use with calls,
	// when empty.
	StopReason string
	// Status, when not 0, makes the answer an error with this status,
	// ErrorType ("overloaded_error", say) and ErrorMessage, and the
	// Retry-After header RetryAfter when set.
	Status       int
	ErrorType    string
	ErrorMessage string
	RetryAfter   string
}

// Usage is what a request was billed, as Anthropic reports it.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Server is a Messages API on loopback. Set its fields before the first
// request; it is safe for concurrent requests.
type Server struct {
	// URL is the base URL to give the adapter.
	URL string
	// Answer returns the answer to a request's body; a text "ok" when
	// nil.
	Answer func(body []byte) Turn
	// Key, when set, is the x-api-key a request must carry (401
	// otherwise).
	Key string
	// MinCacheTokens is the shortest prefix cached: 1024 when 0.
	MinCacheTokens int
	// Now is the clock of the cache's time to live; time.Now when nil.
	Now func() time.Time

	srv *httptest.Server

	mu     sync.Mutex
	cache  map[string]time.Time // prefix hash → expiry
	bodies [][]byte
	billed []Usage
}

// NewServer starts a Server; Close it when done.
func NewServer() *Server {
	s := &Server{cache: map[string]time.Time{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Client is the HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Bodies returns the bodies of the requests received, in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Billed returns the usage billed for each successful request, in order.
func (s *Server) Billed() []Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Usage(nil), s.billed...)
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func fail(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
}

// request is what the server reads of a body.
type request struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Thinking *json.RawMessage  `json:"thinking"`
	Tools    []json.RawMessage `json:"tools"`
	System   []json.RawMessage `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		fail(w, http.StatusNotFound, "not_found_error", "no such endpoint: "+r.URL.Path)
		return
	}
	if s.Key != "" && r.Header.Get("X-Api-Key") != s.Key {
		fail(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	var req request
	if err := json.Unmarshal(body, &req); err != nil || req.Model == "" || len(req.Messages) == 0 {
		fail(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("the body is not a Messages request: %v", err))
		return
	}
	if msg := s.checkThinking(&req); msg != "" {
		fail(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	turn := Turn{Text: "ok"}
	if s.Answer != nil {
		turn = s.Answer(body)
	}
	if turn.Status != 0 {
		if turn.RetryAfter != "" {
			w.Header().Set("Retry-After", turn.RetryAfter)
		}
		fail(w, turn.Status, turn.ErrorType, turn.ErrorMessage)
		return
	}
	u := s.bill(&req)
	u.OutputTokens = max(1, (len(turn.Text)+len(turn.Thinking))/4)
	s.mu.Lock()
	s.billed = append(s.billed, u)
	s.mu.Unlock()
	msg := s.message(req.Model, turn, u)
	if req.Stream {
		s.stream(w, msg, turn)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}

// signature is the signature of a thinking block's text.
func signature(thinking string) string {
	h := sha256.Sum256([]byte("signed:" + thinking))
	return hex.EncodeToString(h[:])
}

// checkThinking refuses, as the API does, a tool loop with thinking on
// whose last assistant turn lacks its thinking block, or carries one
// with a signature the server did not give.
func (s *Server) checkThinking(req *request) string {
	for i, m := range req.Messages {
		for _, raw := range m.Content {
			var b struct{ Type, Thinking, Signature string }
			if json.Unmarshal(raw, &b) == nil && b.Type == "thinking" && b.Signature != signature(b.Thinking) {
				return fmt.Sprintf("messages.%d: a thinking block was modified: its signature does not match", i)
			}
		}
	}
	if req.Thinking == nil {
		return ""
	}
	n := len(req.Messages)
	if n < 2 || req.Messages[n-2].Role != "assistant" {
		return ""
	}
	content := req.Messages[n-2].Content
	var first struct{ Type string }
	hasToolUse := false
	for _, raw := range content {
		var b struct{ Type string }
		_ = json.Unmarshal(raw, &b)
		hasToolUse = hasToolUse || b.Type == "tool_use"
	}
	if len(content) > 0 {
		_ = json.Unmarshal(content[0], &first)
	}
	if hasToolUse && first.Type != "thinking" && first.Type != "redacted_thinking" {
		return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", n-2, first.Type)
	}
	return ""
}

// segment is one cacheable unit of a request, without its cache_control.
type segment struct {
	bytes      []byte
	breakpoint bool
	ttl        time.Duration
}

// segments lists the request's units in the order Anthropic caches them:
// tools, system, messages.
func segments(req *request) []segment {
	var out []segment
	add := func(prefix string, raw json.RawMessage) {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			out = append(out, segment{bytes: append([]byte(prefix), raw...)})
			return
		}
		seg := segment{}
		if cc, ok := fields["cache_control"]; ok {
			seg.breakpoint, seg.ttl = true, 5*time.Minute
			if bytes.Contains(cc, []byte(`"1h"`)) {
				seg.ttl = time.Hour
			}
			delete(fields, "cache_control")
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.WriteString(prefix)
		for _, k := range keys {
			b.WriteString(k)
			b.Write(fields[k])
		}
		seg.bytes = b.Bytes()
		out = append(out, seg)
	}
	for _, t := range req.Tools {
		add("tool:", t)
	}
	for _, b := range req.System {
		add("system:", b)
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			prefix := ""
			if j == 0 {
				prefix = fmt.Sprintf("%d:%s:", i, m.Role)
			}
			add(prefix, b)
		}
	}
	return out
}

// bill counts a request's input as Anthropic would.
func (s *Server) bill(req *request) Usage {
	segs := segments(req)
	minTokens := s.MinCacheTokens
	if minTokens <= 0 {
		minTokens = 1024
	}
	type mark struct {
		hash   string
		tokens int
		ttl    time.Duration
	}
	var marks []mark
	h := sha256.New()
	total := 0
	for _, seg := range segs {
		h.Write(seg.bytes)
		total += len(seg.bytes)
		if seg.breakpoint && total/4 >= minTokens {
			marks = append(marks, mark{hash: hex.EncodeToString(h.Sum(nil)), tokens: total / 4, ttl: seg.ttl})
		}
	}
	all := total / 4
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	read := 0
	for _, m := range marks {
		if exp, ok := s.cache[m.hash]; ok && now.Before(exp) {
			read = m.tokens
			s.cache[m.hash] = now.Add(m.ttl) // a read refreshes the entry
		}
	}
	written := read
	for _, m := range marks {
		if m.tokens > read {
			s.cache[m.hash] = now.Add(m.ttl)
			written = m.tokens
		}
	}
	return Usage{InputTokens: all - written, CacheReadInputTokens: read, CacheCreationInputTokens: written - read}
}

type content struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type message struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Role         string    `json:"role"`
	Model        string    `json:"model"`
	Content      []content `json:"content"`
	StopReason   string    `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	Usage        Usage     `json:"usage"`
}

func (s *Server) message(modelID string, t Turn, u Usage) message {
	s.mu.Lock()
	n := len(s.billed)
	s.mu.Unlock()
	m := message{ID: fmt.Sprintf("msg_%04d", n), Type: "message", Role: "assistant", Model: modelID, Content: []content{}, StopReason: t.StopReason, Usage: u}
	if t.Thinking != "" {
		th := t.Thinking
		m.Content = append(m.Content, content{Type: "thinking", Thinking: &th, Signature: signature(th)})
	}
	if t.Text != "" {
		text := t.Text
		m.Content = append(m.Content, content{Type: "text", Text: &text})
	}
	for _, c := range t.ToolCalls {
		m.Content = append(m.Content, content{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage(c.Arguments)})
	}
	if m.StopReason == "" {
		m.StopReason = "end_turn"
		if len(t.ToolCalls) > 0 {
			m.StopReason = "tool_use"
		}
	}
	return m
}

// stream writes msg as Anthropic's server-sent events, text in pieces of
// up to 16 bytes.
func (s *Server) stream(w http.ResponseWriter, msg message, t Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	start := msg
	start.Content, start.StopReason = []content{}, ""
	start.Usage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": start})
	event("ping", map[string]string{"type": "ping"})
	for i, c := range msg.Content {
		switch c.Type {
		case "text":
			empty := ""
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": content{Type: "text", Text: &empty}})
			for _, piece := range pieces(*c.Text, 16) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "text_delta", "text": piece}})
			}
		case "thinking":
			empty := ""
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": content{Type: "thinking", Thinking: &empty, Signature: ""}})
			for _, piece := range pieces(*c.Thinking, 16) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "thinking_delta", "thinking": piece}})
			}
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "signature_delta", "signature": c.Signature}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": content{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage(`{}`)}})
			for _, piece := range pieces(string(c.Input), 16) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": msg.Usage.OutputTokens}})
	event("message_stop", map[string]string{"type": "message_stop"})
}

// pieces cuts s into pieces of at most n bytes, never inside a rune.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && k > 0 && s[k]&0xC0 == 0x80 {
			k--
		}
		if k == 0 {
			k = len(s)
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
