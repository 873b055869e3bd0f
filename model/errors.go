package model

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors a caller can branch on with errors.Is, through any wrapping.
var (
	// ErrRateLimited reports that the provider throttled the request. The
	// error is a *RateLimitError, which may say how long to wait.
	ErrRateLimited = errors.New("model: rate limited by the provider; wait and retry, or lower the request rate")
	// ErrContextLength reports that the conversation does not fit the
	// model's context window.
	ErrContextLength = errors.New("model: context length exceeded; shorten the conversation or use a model with a larger context window")
	// ErrAuth reports that the provider rejected the credentials or the
	// permissions of the key.
	ErrAuth = errors.New("model: authentication failed; check the API key (LLM_API_KEY) and its permissions for this model")
	// ErrQuota reports that the account has no quota or credit left: a
	// billing matter, which waiting does not fix.
	ErrQuota = errors.New("model: the provider refused for lack of quota or credit on the account (a billing matter, not a rate limit); add credit or raise the account's limits at the provider")
	// ErrNotConfigured reports that no main model is configured. Its
	// message says which variables to set.
	ErrNotConfigured = errors.New("model: no main model configured")
	// ErrUnknownModel reports a model name a Router does not know. The
	// error message lists the configured names.
	ErrUnknownModel = errors.New("model: unknown model name")
)

// RateLimitError is returned when the provider throttled a request (HTTP 429
// for OpenAI-compatible servers). errors.Is(err, ErrRateLimited) is true.
type RateLimitError struct {
	// RetryAfter is how long the provider asked to wait; 0 when unknown.
	RetryAfter time.Duration
	// Err is the underlying error (often an *APIError).
	Err error
}

// Error describes the throttling and, when known, how long to wait.
func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString("model: rate limited")
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *RateLimitError) Unwrap() error { return e.Err }

// Is reports whether target is ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// APIError is an error reported by the provider's server that has no more
// specific kind (a 5xx, a malformed request, an unknown model).
type APIError struct {
	// StatusCode is the HTTP status, 0 if unknown.
	StatusCode int
	// Code is the provider's error code (for example
	// "context_length_exceeded"), empty if none.
	Code string
	// Message is the provider's explanation.
	Message string
	// Err is the underlying error from the client library, if any.
	Err error
}

// Error gives the status, the code and the provider's message.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("model: provider error")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.StatusCode)
		if e.Code != "" {
			fmt.Fprintf(&b, ", code %s", e.Code)
		}
		b.WriteString(")")
	} else if e.Code != "" {
		fmt.Fprintf(&b, " (code %s)", e.Code)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether retrying the same request may succeed: server
// errors (5xx) and throttling (429).
func (e *APIError) Temporary() bool {
	return e.StatusCode == 429 || e.StatusCode >= 500
}

// ErrTimeout reports that a call to a model ran past one of its bounds:
// the whole call took too long, or the server went silent in the middle
// of its answer. The error is a *TimeoutError, which says which bound.
var ErrTimeout = errors.New("model: the call timed out")

// TimeoutError is the error of a model call that ran past one of its
// bounds. errors.Is(err, ErrTimeout) and errors.Is(err,
// context.DeadlineExceeded) are true.
type TimeoutError struct {
	// Stall is true when the server went silent for Limit (the stall
	// timeout); false when the whole call took Limit (the timeout).
	Stall bool
	// Limit is the bound that was reached.
	Limit time.Duration
}

// Error says which bound fired and how to change it.
func (e *TimeoutError) Error() string {
	if e.Stall {
		return fmt.Sprintf("model: the server sent nothing for %s, the stall timeout; if it is slow rather than stuck, raise it "+
			"(\"stall_timeout\" in the model's configuration, or LLM_STALL_TIMEOUT)", e.Limit)
	}
	return fmt.Sprintf("model: no complete answer within %s, the timeout of a whole call; if the model needs longer, raise it "+
		"(\"timeout\" in the model's configuration, or LLM_TIMEOUT)", e.Limit)
}

// Is reports whether target is ErrTimeout or context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

// ErrorKind names the kind of a model call's error in a few words a
// program or a trace backend can group by (OpenTelemetry's error.type):
// "cancelled", "timeout", "rate_limited", "context_length", "auth",
// "quota", "http_4xx" or "http_5xx" for other errors of the provider's
// server (by the class of the HTTP status), "provider_error" for an error
// the server reported without such a status (inside a stream, or an answer
// that could not be read), and "_OTHER" for any other error. It is
// "" for a nil error.
func ErrorKind(err error) string {
	var api *APIError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, ErrRateLimited):
		return "rate_limited"
	case errors.Is(err, ErrContextLength):
		return "context_length"
	case errors.Is(err, ErrAuth):
		return "auth"
	case errors.Is(err, ErrQuota):
		return "quota"
	case errors.As(err, &api) && api.StatusCode >= 400 && api.StatusCode < 600:
		return fmt.Sprintf("http_%dxx", api.StatusCode/100)
	case errors.As(err, &api):
		return "provider_error"
	}
	return "_OTHER"
}
