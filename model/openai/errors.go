package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	gopenai "github.com/sashabaranov/go-openai"
	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/model"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// statusError turns an answer with an error status into the model
// package's error kinds, reading the provider's explanation from its body:
// OpenAI's {"error": {...}}, or the bare {"message": ...} some compatible
// servers send, or else the text itself.
func (m *Model) statusError(resp *http.Response) error {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &model.APIError{StatusCode: resp.StatusCode}
	var kind string
	var wrapped gopenai.ErrorResponse
	var bare gopenai.APIError
	switch {
	case json.Unmarshal(body, &wrapped) == nil && wrapped.Error != nil:
		e.Message, e.Code, kind = wrapped.Error.Message, errorCode(wrapped.Error.Code), wrapped.Error.Type
	case json.Unmarshal(body, &bare) == nil && bare.Message != "":
		e.Message, e.Code, kind = bare.Message, errorCode(bare.Code), bare.Type
	case isWebPage(resp.Header, body):
		e.Message = webPageAdvice
	default:
		e.Message = truncate(strings.TrimSpace(string(body)), 500)
		if e.Message == "" && readErr != nil {
			e.Err = readErr
		}
	}
	if resp.StatusCode == http.StatusNotFound && e.Message != webPageAdvice {
		e.Message = strings.TrimSuffix(e.Message, ".") + "; " + wrongPlace
		if strings.HasPrefix(e.Message, "; ") {
			e.Message = wrongPlace
		}
	}
	e.Message = m.redact(e.Message)
	return classify(e, kind, resp.Header, m.cfg.Now())
}

// wrongPlace says where a request that found no chat completions went.
const wrongPlace = "the base URL (LLM_BASE_URL, or \"base_url\" in the configuration) probably lacks /v1 or points at " +
	"another service: it must be the API root whose /chat/completions answers, such as http://localhost:8000/v1"

// webPageAdvice is the message for a server that answered with a web page.
const webPageAdvice = "the server answered with a web page, not the API: " + wrongPlace

// isWebPage reports whether an answer is HTML.
func isWebPage(h http.Header, body []byte) bool {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "text/html" {
		return true
	}
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 64)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// webPage is the error of a successful status whose body is a web page.
func webPage(status int) error {
	return &model.APIError{StatusCode: status, Message: webPageAdvice}
}

// classify wraps e in the kind of error its status and code say.
func classify(e *model.APIError, kind string, header http.Header, now time.Time) error {
	switch {
	case e.Code == "insufficient_quota" || kind == "insufficient_quota":
		return fmt.Errorf("%w: %w", model.ErrQuota, e)
	case e.StatusCode == http.StatusTooManyRequests:
		return &model.RateLimitError{RetryAfter: retryAfter(header, now), Err: e}
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden ||
		e.Code == "invalid_api_key" || kind == "authentication_error" || e.Code == "invalid_authentication":
		return fmt.Errorf("%w: %w", model.ErrAuth, e)
	case (e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusRequestEntityTooLarge || e.StatusCode == 0) &&
		isContextLength(e.Code, kind, e.Message):
		return fmt.Errorf("%w: %w", model.ErrContextLength, e)
	}
	return e
}

// errorCode renders the code of a provider error: a string, a number (vLLM
// sends the status), or null.
func errorCode(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	case int: // go-openai decodes a null code as 0
		if c == 0 {
			return ""
		}
		return strconv.Itoa(c)
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return fmt.Sprint(code)
}

// maxBody bounds the size of an answer: a chat completion, or the text and
// tool calls assembled from a stream.
const maxBody = 32 << 20

// invalidBody is the error for an answer that arrived but cannot be used.
func invalidBody(status int, detail string, cause error) error {
	return &model.APIError{
		StatusCode: status,
		Message: "response body invalid: " + detail + "; the request was not retried, since the server may have finished " +
			"(and billed) the generation: check the server or any proxy in between, and retry the call if that is safe",
		Err: cause,
	}
}

// readCompletion reads and decodes a chat completion answer.
func readCompletion(resp *http.Response) (gopenai.ChatCompletionResponse, error) {
	var cr gopenai.ChatCompletionResponse
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	switch {
	case err != nil:
		return cr, invalidBody(resp.StatusCode, fmt.Sprintf("reading it failed after %d bytes: %v", len(data), err), err)
	case len(data) > maxBody:
		return cr, invalidBody(resp.StatusCode, fmt.Sprintf("it is larger than %d MiB", maxBody>>20), nil)
	}
	if isWebPage(resp.Header, data) {
		return cr, webPage(resp.StatusCode)
	}
	err = json.NewDecoder(bytes.NewReader(data)).Decode(&cr)
	switch {
	case errors.Is(err, io.EOF):
		return cr, invalidBody(resp.StatusCode, "the body is empty", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return cr, invalidBody(resp.StatusCode, fmt.Sprintf("the body ends before its JSON value is complete (after %d bytes)", len(data)), err)
	case err != nil:
		return cr, invalidBody(resp.StatusCode, fmt.Sprintf("the body is not a chat completion (%v): %q", err, truncate(string(data), 200)), err)
	}
	if len(cr.Choices) > 0 {
		msg := cr.Choices[0].Message
		content := gjson.GetBytes(data, "choices.0.message.content")
		if len(msg.ToolCalls) == 0 && msg.Refusal == "" && (!content.Exists() || content.Type == gjson.Null) {
			return cr, noAnswer(resp.StatusCode, string(cr.Choices[0].FinishReason))
		}
	}
	return cr, nil
}

// noAnswer is the error for an answer whose message has no content (absent
// or null), no tool calls and no refusal: nothing a caller could take as
// the model's answer. An empty string is an answer: the model said nothing.
func noAnswer(status int, finish string) error {
	detail := fmt.Sprintf("the answer has neither content nor tool calls (finish reason %q)", finish)
	if finish == string(gopenai.FinishReasonLength) {
		detail += ": the model ran out of tokens before writing any; raise MaxTokens"
	}
	return invalidBody(status, detail, nil)
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
	if errors.Is(err, model.ErrTimeout) { // a stall before the answer began
		return true
	}
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
