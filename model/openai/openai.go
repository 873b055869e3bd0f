// Package openai adapts any OpenAI-compatible Chat Completions server
// (OpenAI, vLLM, llama.cpp server, Ollama, …) to model.Model and
// model.Streamer, using the wire types of github.com/sashabaranov/go-openai.
//
// It maps tools to function tools, tool calls and tool results both ways,
// usage and finish reasons; structured output to response_format
// json_schema (strict schemas are rewritten as strict mode requires, an
// array is requested inside an object, and the answer is mapped back);
// provider errors to the model package's error kinds. It retries
// throttling (429), server errors (5xx) and connections dropped or refused
// before an answer, with exponential backoff and full jitter, honouring
// Retry-After, within a total time budget and the context; once the server
// has answered, nothing is retried. Stream delivers the answer as it is
// generated (server-sent events with stream_options.include_usage).
//
// The adapter sends its requests itself rather than through go-openai's
// client, so that it can send an explicit zero temperature (which the
// client's request type omits), read response headers, tell a broken
// answer from a dropped connection, and read a stream without allocating
// per field.
package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// Defaults used by DefaultConfig and for the zero values of Config fields.
const (
	// defaultBaseURL is OpenAI's API root.
	defaultBaseURL = "https://api.openai.com/v1"
	// defaultMaxRetries is the number of retries DefaultConfig sets. A
	// Config's zero MaxRetries means no retries.
	defaultMaxRetries = 4
	// defaultRetryBudget bounds a call's total time, retries included.
	defaultRetryBudget = 90 * time.Second
	// defaultBaseDelay is the backoff before the first retry.
	defaultBaseDelay = time.Second
	// defaultMaxDelay caps the backoff.
	defaultMaxDelay = 30 * time.Second
	// defaultTimeout bounds a whole call, retries included: long enough for
	// a reasoning model that thinks for minutes, short enough that a dead
	// server does not hold a run forever.
	defaultTimeout = 10 * time.Minute
	// defaultStallTimeout bounds a silence of the server within a call:
	// before the first piece of a streamed answer, between two pieces, or
	// while the body of a whole answer arrives.
	defaultStallTimeout = 5 * time.Minute
)

// Config configures a Model. The zero value of every field is usable; start
// from DefaultConfig to get retries.
type Config struct {
	// BaseURL is the API root, such as "http://localhost:8000/v1";
	// OpenAI's, https://api.openai.com/v1, when empty.
	BaseURL string
	// APIKey is sent as a bearer token; none is sent when empty (local
	// servers).
	APIKey string
	// Model is the model id used when a Request does not name one.
	Model string
	// HTTPClient sends the requests; a new http.Client when nil.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed call is retried after the
	// first attempt: 0 means none. DefaultConfig sets 4.
	// Negative values are an error.
	MaxRetries int
	// RetryBudget bounds the total time of a call including retries and
	// waits: 90s when 0. A wait that would end past the
	// budget is not started; the last error is returned instead.
	RetryBudget time.Duration
	// BaseDelay is the backoff before the first retry; it doubles with
	// each retry up to MaxDelay, and the actual wait is a uniformly random
	// fraction of it (full jitter). 1s when 0.
	BaseDelay time.Duration
	// MaxDelay caps the backoff (not Retry-After): 30s when 0.
	MaxDelay time.Duration
	// Timeout bounds a whole call (Generate or Stream), retries and their
	// waits included: 10 minutes when 0. The error of a call that
	// reaches it matches model.ErrTimeout.
	Timeout time.Duration
	// StallTimeout bounds a silence of the server: from sending a streamed
	// request to the first piece of its answer, between two pieces, and
	// while the body of a whole answer arrives: 5 minutes when 0.
	// A stall before the answer began is retried like a dropped
	// connection; one in the middle of an answer is not. The error matches
	// model.ErrTimeout.
	StallTimeout time.Duration
	// NoStream makes Stream ask for a whole answer ("stream": false) and
	// deliver it in one piece, for servers that mishandle streamed
	// requests.
	NoStream bool
	// SendCacheKey sends Request.CacheKey as prompt_cache_key, for servers
	// that take OpenAI's field. It is always sent to OpenAI's API
	// (api.openai.com); other servers may refuse a field they do not
	// know, so it is not sent to them unless this is set.
	SendCacheKey bool
	// LegacyMaxTokens sends Request.MaxTokens as max_tokens, for servers
	// that do not know max_completion_tokens (the current OpenAI field,
	// used by default).
	LegacyMaxTokens bool
	// ContextWindow and MaxOutputTokens are the model's window and the
	// most tokens of an answer, in tokens, as Describe says them (for the
	// runner's context management); 0 leaves the defaults for the model's
	// family (model.DefaultContextWindow).
	ContextWindow, MaxOutputTokens int
	// Logger receives a warning for each retry; nothing is logged when nil.
	Logger *slog.Logger

	// Rand returns a uniformly random number in [0, 1) for the jitter;
	// math/rand/v2's Float64 when nil. Tests inject a fixed value.
	Rand func() float64
	// Sleep waits d or until ctx is done, returning ctx.Err() then; a timer
	// when nil. Tests inject a fake that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now returns the current time, for the retry budget and HTTP-date
	// Retry-After values; time.Now when nil.
	Now func() time.Time
}

// DefaultConfig returns the recommended configuration: OpenAI's base URL,
// 4 retries within 90 seconds, and the timeouts a zero Config has (10
// minutes for a call, 5 minutes for a silence). Set the model id, the key
// and, for another server, the base URL on it.
func DefaultConfig() Config {
	return Config{
		BaseURL:      defaultBaseURL,
		MaxRetries:   defaultMaxRetries,
		RetryBudget:  defaultRetryBudget,
		BaseDelay:    defaultBaseDelay,
		MaxDelay:     defaultMaxDelay,
		Timeout:      defaultTimeout,
		StallTimeout: defaultStallTimeout,
	}
}

// Model is a model.Model and model.Streamer that calls an OpenAI-compatible
// Chat Completions endpoint. It is safe for concurrent use.
type Model struct {
	cfg           Config
	endpoint      string
	shownEndpoint string   // endpoint with its query's values redacted
	secrets       []string // what no error may show: the key, the query's values
	sendCacheKey  bool     // send Request.CacheKey (see Config.SendCacheKey)
	desc          model.Description
}

var (
	_ model.Model     = (*Model)(nil)
	_ model.Streamer  = (*Model)(nil)
	_ model.Describer = (*Model)(nil)
)

// New returns a Model for cfg. It fails on an invalid BaseURL or a negative
// MaxRetries.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q must be an absolute http(s) URL such as %q", cfg.BaseURL, defaultBaseURL)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("openai: MaxRetries is %d; use 0 for no retries, or a positive count such as DefaultConfig's %d",
			cfg.MaxRetries, defaultMaxRetries)
	}
	if cfg.RetryBudget <= 0 {
		cfg.RetryBudget = defaultRetryBudget
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = defaultBaseDelay
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = defaultMaxDelay
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = defaultStallTimeout
	}
	// The endpoint keeps the base URL's query (some gateways take an
	// api-version or a key there); what errors show of it is redacted.
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	u.RawPath = ""
	m := &Model{cfg: cfg, endpoint: u.String(), sendCacheKey: cfg.SendCacheKey || u.Host == "api.openai.com"}
	m.secrets = secretsOf(cfg.APIKey, u)
	m.desc = model.Description{ID: cfg.Model, Provider: "openai", ServerAddress: u.Hostname(), ServerPort: port(u),
		ContextWindow: cfg.ContextWindow, MaxOutputTokens: cfg.MaxOutputTokens}
	shown := *u
	shown.RawQuery = m.redact(u.RawQuery)
	m.shownEndpoint = shown.String()
	return m, nil
}

// Describe says what m calls: Config.Model, served by "openai" (the API it
// speaks) at the base URL's host and port.
func (m *Model) Describe() model.Description { return m.desc }

// port is u's port: the one it names, or its scheme's.
func port(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// Factory returns a model.Factory for model.NewRouter that builds Models
// from base (DefaultConfig, say), with the router's model id, API key,
// base URL, timeouts and stream setting (when set) taking the place of
// base's.
func Factory(base Config) model.Factory {
	return func(_ string, mc model.ModelConfig) (model.Model, error) {
		c := base
		c.Model = mc.ModelID
		if mc.APIKey != "" {
			c.APIKey = mc.APIKey
		}
		if mc.BaseURL != "" {
			c.BaseURL = mc.BaseURL
		}
		if mc.Timeout > 0 {
			c.Timeout = time.Duration(mc.Timeout)
		}
		if mc.StallTimeout > 0 {
			c.StallTimeout = time.Duration(mc.StallTimeout)
		}
		if mc.Stream != nil {
			c.NoStream = !*mc.Stream
		}
		if mc.ContextWindow > 0 {
			c.ContextWindow = mc.ContextWindow
		}
		if mc.MaxOutputTokens > 0 {
			c.MaxOutputTokens = mc.MaxOutputTokens
		}
		m, err := New(c)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// Generate sends req to the Chat Completions endpoint and returns the
// assistant's answer. Throttling, server errors and connections dropped
// before an answer are retried (see Config); the error returned matches
// model.ErrRateLimited, model.ErrAuth, model.ErrContextLength or
// *model.APIError with errors.Is/As, or the context's error. An answer
// whose body is empty, cut short or not a chat completion, or whose message
// has neither content nor tool calls, is an *model.APIError saying
// "response body invalid", never retried: the server may have finished,
// and billed, the generation.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("openai: Generate needs a request")
	}
	ctx, cancel := m.bound(ctx)
	defer cancel()
	resp, err := m.generate(ctx, req)
	return resp, m.callError(ctx, err)
}

func (m *Model) generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	body, out, err := m.chatRequest(req, false)
	if err != nil {
		return nil, err
	}
	resp, err := m.send(ctx, body, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	cr, err := readCompletion(resp)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("openai: %w while reading the answer: %w", cerr, err)
		}
		return nil, err
	}
	return convertResponse(req, cr, out)
}

// send posts body to the endpoint, retrying as Config says, and returns the
// first successful answer with its body unread. Only failures before an
// answer arrives are retried: error statuses (429, 5xx) and connections
// refused, reset or dropped before the status line.
func (m *Model) send(ctx context.Context, body []byte, stream bool) (*http.Response, error) {
	start := m.cfg.Now()
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		resp, header, err := m.post(ctx, body, stream)
		if err == nil {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(err, cerr) {
				return nil, err
			}
			return nil, fmt.Errorf("openai: %w after: %w", cerr, err)
		}
		if !retryable(err) {
			return nil, giveUp(attempt, err)
		}
		if attempt >= m.cfg.MaxRetries {
			if attempt == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("openai: giving up after %d attempts (the retry limit): %w", attempt+1, err)
		}
		wait := m.backoff(attempt, retryAfter(header, m.cfg.Now()))
		if elapsed := m.cfg.Now().Sub(start); elapsed+wait > m.cfg.RetryBudget {
			return nil, fmt.Errorf("openai: giving up after %d attempts in %s: waiting %s more would exceed the retry budget of %s: %w",
				attempt+1, elapsed.Round(time.Millisecond), wait, m.cfg.RetryBudget, err)
		}
		if m.cfg.Logger != nil {
			m.cfg.Logger.WarnContext(ctx, "openai: retrying chat completion",
				"attempt", attempt+1, "wait", wait, "error", err)
		}
		if serr := m.cfg.Sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("openai: %w while waiting %s to retry: %w", serr, wait, err)
		}
	}
}

// post makes one attempt. On a 2xx status it returns the response with its
// body open; otherwise the error, mapped to the model package's kinds, and
// the response headers when an answer came.
func (m *Model) post(ctx context.Context, body []byte, stream bool) (*http.Response, http.Header, error) {
	ctx, watch := m.watch(ctx, stream)
	resp, header, err := m.attempt(ctx, body, stream)
	if err != nil {
		return nil, header, watch.Fail(err)
	}
	resp.Body = watch.Body(resp.Body)
	return resp, header, nil
}

func (m *Model) attempt(ctx context.Context, body []byte, stream bool) (*http.Response, http.Header, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("openai: chat completion: %w", m.hideURL(err))
	}
	hreq.Header.Set("Content-Type", "application/json")
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
		hreq.Header.Set("Cache-Control", "no-cache")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if m.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, nil, fmt.Errorf("openai: chat completion: %w", m.hideURL(err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, resp.Header, nil
	}
	defer resp.Body.Close()
	return nil, resp.Header, m.statusError(resp)
}

func giveUp(attempt int, err error) error {
	if attempt == 0 {
		return err
	}
	return fmt.Errorf("openai: giving up after %d attempts: %w", attempt+1, err)
}

// backoff returns the wait before retry number attempt+1: a uniformly
// random fraction of min(MaxDelay, BaseDelay·2^attempt), or the server's
// Retry-After (sent with 429 and 503 answers) when that is longer.
func (m *Model) backoff(attempt int, retryAfter time.Duration) time.Duration {
	ceiling := m.cfg.MaxDelay
	if attempt < 30 {
		ceiling = min(ceiling, m.cfg.BaseDelay<<attempt)
	}
	return max(time.Duration(m.cfg.Rand()*float64(ceiling)), retryAfter)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
