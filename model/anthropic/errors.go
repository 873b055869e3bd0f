package anthropic

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/model"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// maxBody bounds an answer: a whole message, or what a stream assembles.
const maxBody = 32 << 20

// statusOverloaded is Anthropic's status for an overloaded API, retried
// like a server error.
const statusOverloaded = 529

// statusError turns an answer with an error status into the model
// package's error kinds, reading Anthropic's {"type":"error","error":
// {"type":…,"message":…}} or else the text itself.
func (m *Model) statusError(resp *http.Response) error {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &model.APIError{StatusCode: resp.StatusCode}
	if v := gjson.GetBytes(body, "error"); gjson.ValidBytes(body) && v.IsObject() {
		e.Code, e.Message = v.Get("type").String(), v.Get("message").String()
	} else {
		e.Message = truncate(strings.TrimSpace(string(body)), 500)
		if e.Message == "" && readErr != nil {
			e.Err = readErr
		}
	}
	if resp.StatusCode == http.StatusNotFound && e.Code != "not_found_error" {
		e.Message = strings.TrimSuffix(e.Message, ".") + "; " + wrongPlace
	}
	e.Message = m.redact(e.Message)
	return classify(e, resp.Header, m.cfg.Now())
}

// wrongPlace says where a request that found no Messages API went.
const wrongPlace = "the base URL (LLM_BASE_URL, or \"base_url\" in the configuration) points at another service: " +
	"it must be the API root whose /v1/messages answers, such as https://api.anthropic.com"

// classify wraps e in the kind of error its status and type say, with the
// advice the OpenAI adapter gives.
func classify(e *model.APIError, header http.Header, now time.Time) error {
	msg := strings.ToLower(e.Message)
	switch {
	case e.Code == "billing_error" || strings.Contains(msg, "credit balance"):
		return fmt.Errorf("%w: %w", model.ErrQuota, e)
	case e.StatusCode == http.StatusTooManyRequests || e.Code == "rate_limit_error":
		return &model.RateLimitError{RetryAfter: retryAfter(header, now), Err: e}
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden ||
		e.Code == "authentication_error" || e.Code == "permission_error":
		return fmt.Errorf("%w (ANTHROPIC_API_KEY, or LLM_API_KEY with the anthropic provider): %w", model.ErrAuth, e)
	case isContextLength(e):
		return fmt.Errorf("%w: %w", model.ErrContextLength, e)
	}
	return e
}

// isContextLength recognizes a prompt the model's context window cannot
// hold: "prompt is too long: 208310 tokens > 200000 maximum", or a
// request too large for the API.
func isContextLength(e *model.APIError) bool {
	msg := strings.ToLower(e.Message)
	return e.Code == "request_too_large" || e.StatusCode == http.StatusRequestEntityTooLarge ||
		(e.StatusCode == http.StatusBadRequest || e.StatusCode == 0) &&
			(strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "context window") || strings.Contains(msg, "context length"))
}

// retryable reports whether err is throttling, overload, a server error,
// a stall before the answer or a dropped connection.
func retryable(err error) bool {
	if errors.Is(err, model.ErrTimeout) {
		return true
	}
	if errors.Is(err, model.ErrQuota) || errors.Is(err, model.ErrAuth) || errors.Is(err, model.ErrContextLength) {
		return false
	}
	var e *model.APIError
	if !errors.As(err, &e) {
		return transient(err)
	}
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// retryAfter reads how long the server asked to wait: retry-after-ms,
// else retry-after in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms <= 24*3600*1000 {
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
		if d := t.Sub(now); d > 0 && d <= 24*time.Hour {
			return d
		}
	}
	return 0
}

// transient reports whether a transport error is worth another try.
func transient(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// invalidBody is the error for an answer that arrived but cannot be used.
func invalidBody(status int, detail string, cause error) error {
	return &model.APIError{
		StatusCode: status,
		Message: "response body invalid: " + detail + "; the request was not retried, since the server may have finished " +
			"(and billed) the generation: check the server or any proxy in between, and retry the call if that is safe",
		Err: cause,
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// redacted replaces a secret in what errors show.
const redacted = "[REDACTED]"

// redact replaces the key in s.
func (m *Model) redact(s string) string {
	for _, secret := range m.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}

// redactError returns err, or an error whose message has the key
// redacted and which still matches what err matches.
func (m *Model) redactError(err error) error {
	if err == nil || len(m.secrets) == 0 {
		return err
	}
	msg := err.Error()
	if clean := m.redact(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
