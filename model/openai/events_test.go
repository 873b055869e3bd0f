package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/internal/httpcall"
)

func TestEventReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one per blank line", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"no space after the colon", "data:a\n\n", []string{"a"}},
		{"several data lines join", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and other fields skipped", ": ping\n\nevent: x\nid: 7\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"no final newline", "data: a\n\ndata: b", []string{"a", "b"}},
		{"no final blank line", "data: a\n", []string{"a"}},
		{"empty", "", nil},
		{"only comments", ":x\n\n:y\n", nil},
		{"long line", "data: " + strings.Repeat("x", 100_000) + "\n\n", []string{strings.Repeat("x", 100_000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newEventReader(strings.NewReader(tt.in))
			var got []string
			for {
				data, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				got = append(got, string(data))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEventReaderBoundsAnEvent(t *testing.T) {
	assert.Equal(t, maxBody+64<<10, newEventReader(nil).Max(), "one event may hold a whole answer, a tool call of many MiB included")
	r := httpcall.NewEventReader(strings.NewReader(strings.Repeat("data: "+strings.Repeat("x", 10<<10)+"\n", 10)+"\n"), 64<<10)
	_, err := r.Next()
	require.ErrorContains(t, err, "an event is larger than 64 KiB")
	r = httpcall.NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 100<<10)), 64<<10)
	_, err = r.Next()
	require.ErrorContains(t, err, "a line of the stream is longer than 64 KiB")
}

// readStream runs a body through the stream assembler.
func readStream(body string, limit int) (*streamState, error) {
	s := &streamState{req: &model.Request{}, fn: func(model.Delta) error { return nil }, status: 200, now: time.Now, limit: limit}
	return s, s.read(newEventReader(strings.NewReader(body)))
}

func TestStreamBounds(t *testing.T) {
	var b strings.Builder
	for i := range maxToolCalls + 1 {
		b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":` + itoa(i) + `,"function":{"name":"t"}}]}}]}` + "\n\n")
	}
	_, err := readStream(b.String(), maxBody)
	require.ErrorContains(t, err, "more than 1024 tool calls")

	piece := `data: {"choices":[{"delta":{"content":"` + strings.Repeat("x", 300<<10) + `"}}]}` + "\n\n"
	_, err = readStream(strings.Repeat(piece, 4), 1<<20)
	require.ErrorContains(t, err, "larger than 1 MiB")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// FuzzStream feeds arbitrary bodies to the stream reader: whatever a
// server sends, it returns an answer or an error, never panics, and keeps
// what it assembles within its bounds.
func FuzzStream(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := readStream(string(body), maxBody)
		if err == nil {
			resp := s.response(nil)
			if resp == nil || resp.Message.Role != model.RoleAssistant {
				t.Fatalf("no answer for %q", body)
			}
		}
		if s.size > s.limit || len(s.calls) > maxToolCalls {
			t.Fatalf("bounds exceeded: %d bytes, %d calls", s.size, len(s.calls))
		}
		_ = s.partial()
	})
}

// FuzzMapBack feeds arbitrary answers to the structured-output mapping: a
// model controls them.
func FuzzMapBack(f *testing.F) {
	schema, err := parseOrdered([]byte(`{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/$defs/b"}}},` +
		`"$defs":{"b":{"type":"object","properties":{"c":{"type":"integer"}}}}}`))
	require.NoError(f, err)
	out := &outputMapping{schema: schema, wrapped: true}
	f.Fuzz(func(t *testing.T, answer string) {
		got := out.mapBack(answer)
		if got == "" && answer != "" {
			t.Fatalf("mapBack(%q) lost the answer", answer)
		}
	})
}
