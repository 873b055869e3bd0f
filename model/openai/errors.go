package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	gopenai "github.com/sashabaranov/go-openai"

	"github.com/offshoot-dev/offshoot/model"
)

// headerTransport records the response headers of each request in the sink
// its context carries: go-openai's errors do not expose headers, and
// Retry-After lives there.
type headerTransport struct {
	base http.RoundTripper
}

type headerSinkKey struct{}

func withHeaderSink(ctx context.Context, sink *http.Header) context.Context {
	return context.WithValue(ctx, headerSinkKey{}, sink)
}

// RoundTrip sends req with the base transport and records the response
// headers.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err == nil {
		if sink, ok := req.Context().Value(headerSinkKey{}).(*http.Header); ok {
			*sink = resp.Header
		}
	}
	return resp, err
}

// mapError turns a go-openai error into the model package's error kinds.
func (m *Model) mapError(err error, header http.Header) error {
	var (
		apiErr *gopenai.APIError
		reqErr *gopenai.RequestError
		e      = &model.APIError{Err: err}
		kind   string
	)
	switch {
	case errors.As(err, &apiErr):
		e.StatusCode = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
		switch code := apiErr.Code.(type) {
		case nil:
		case string:
			e.Code = code
		case int: // go-openai decodes a null code as 0
			if code != 0 {
				e.Code = strconv.Itoa(code)
			}
		default:
			e.Code = fmt.Sprint(code)
		}
		kind = apiErr.Type
	case errors.As(err, &reqErr):
		e.StatusCode = reqErr.HTTPStatusCode
		e.Message = truncate(strings.TrimSpace(string(reqErr.Body)), 500)
	default:
		return fmt.Errorf("openai: chat completion: %w", err) // transport error
	}
	switch {
	case e.StatusCode == http.StatusTooManyRequests:
		return &model.RateLimitError{RetryAfter: retryAfter(header, m.cfg.Now()), Err: e}
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %w", model.ErrAuth, e)
	case (e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusRequestEntityTooLarge) &&
		isContextLength(e.Code, kind, e.Message):
		return fmt.Errorf("%w: %w", model.ErrContextLength, e)
	}
	return e
}

// isContextLength recognizes OpenAI's code and the messages of common
// compatible servers (vLLM, llama.cpp server).
func isContextLength(code, kind, msg string) bool {
	if code == "context_length_exceeded" || kind == "exceed_context_size_error" {
		return true
	}
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "maximum context length") || strings.Contains(msg, "context size") ||
		strings.Contains(msg, "context length")
}

// retryable reports whether err is throttling (other than an exhausted
// quota, which waiting does not fix) or a server error.
func retryable(err error) bool {
	var e *model.APIError
	if !errors.As(err, &e) {
		return transient(err)
	}
	if e.StatusCode == http.StatusTooManyRequests {
		return e.Code != "insufficient_quota"
	}
	return e.StatusCode >= 500
}

// retryAfter reads how long the server asked to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 24*3600 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// transient reports whether a transport error is worth another try: the
// connection was refused, reset or cut before an answer came, or the
// request timed out in the transport (the context's own end is checked
// before any retry).
func transient(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
