// Package anthropic adapts Anthropic's Messages API to model.Model and
// model.Streamer, with the wire vocabulary of the official Go SDK,
// github.com/anthropics/anthropic-sdk-go (its model ids, stop reasons and,
// in the tests, its request and answer types as the contract).
//
// It maps the system messages to system blocks, tools to tools with an
// input_schema, tool calls and results to tool_use and tool_result blocks
// (is_error for a failed call), structured output to output_config's
// json_schema format (Request.Temperature and TopP are not sent: the API
// as the SDK describes it takes no sampling parameters), stop reasons (end_turn, stop_sequence, tool_use,
// max_tokens, pause_turn, refusal) to model.FinishReason, and errors to
// the model package's kinds. It retries throttling (429, honouring
// retry-after), overload (529), other server errors and connections
// dropped before an answer, with exponential backoff and full jitter
// within a time budget, as model/openai does; 401 and 403 are not
// retried, and a prompt too long is model.ErrContextLength.
//
// Extended thinking (Config.ThinkingBudget) keeps the thinking and
// redacted_thinking blocks of each answer in model.Message.Reasoning and
// sends them back unchanged, signatures included, as the API requires
// within a tool loop.
//
// Prompt caching is by breakpoint: Anthropic caches only a prefix a
// request marks. The adapter marks at most four, by rule (see
// breakpoints): after the tools and system prompt; the newest message,
// so that the next turn of a loop reads this one's prefix; the message
// the previous request ended with (in a loop, the previous turn; in a
// fork-context child's first request, the end of the conversation it
// carries on from its caller, so that its siblings read what the first
// wrote); and the newest message a program marked (model.Message.Cache).
// Requests are rendered byte-stable from turn to turn. Usage counts cache
// reads in model.Usage.CachedInputTokens and cache writes in
// CacheWriteTokens, both part of InputTokens.
//
// Package anthropictest serves the Messages API on loopback and bills
// like Anthropic, for tests and examples without a key.
package anthropic

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

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/offshoot-dev/offshoot/model"
)

// Defaults used by DefaultConfig and for the zero values of Config fields.
const (
	defaultBaseURL      = "https://api.anthropic.com"
	defaultMaxRetries   = 4
	defaultRetryBudget  = 90 * time.Second
	defaultBaseDelay    = time.Second
	defaultMaxDelay     = 30 * time.Second
	defaultTimeout      = 10 * time.Minute
	defaultStallTimeout = 5 * time.Minute
	// defaultMaxTokens is max_tokens when neither the Request nor the
	// Config sets it: the API requires one.
	defaultMaxTokens = 8192
	// apiVersion is the anthropic-version header.
	apiVersion = "2023-06-01"
)

// DefaultModel is the model id Factory uses when the configuration names
// none: Claude Sonnet, as the SDK names it.
const DefaultModel = string(sdk.ModelClaudeSonnet4_5)

// Config configures a Model. The zero value of every field is usable; start
// from DefaultConfig to get retries.
type Config struct {
	// BaseURL is the API root; Anthropic's, https://api.anthropic.com,
	// when empty. The adapter posts to BaseURL + "/v1/messages".
	BaseURL string
	// APIKey is sent as x-api-key; none is sent when empty.
	APIKey string
	// Model is the model id used when a Request does not name one.
	Model string
	// MaxTokens is max_tokens when a Request sets none; 8192 when 0.
	MaxTokens int
	// ThinkingBudget, when positive, turns extended thinking on with that
	// many tokens to think in (the API wants at least 1024). max_tokens
	// is raised above it when it is not.
	ThinkingBudget int
	// NoCache sends no cache breakpoints: nothing is cached (for
	// comparison, or for servers that refuse cache_control).
	NoCache bool
	// LongCache caches the tools and system prompt for an hour (ttl
	// "1h", written at twice the price) instead of five minutes.
	LongCache bool
	// HTTPClient sends the requests; a new http.Client when nil.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed call is retried after the
	// first attempt: 0 means none. DefaultConfig sets 4. Negative values
	// are an error.
	MaxRetries int
	// RetryBudget bounds the total time of a call including retries and
	// waits: 90s when 0.
	RetryBudget time.Duration
	// BaseDelay is the backoff before the first retry, doubling up to
	// MaxDelay, with full jitter: 1s when 0.
	BaseDelay time.Duration
	// MaxDelay caps the backoff (not retry-after): 30s when 0.
	MaxDelay time.Duration
	// Timeout bounds a whole call, retries included: 10 minutes when 0.
	// Its error matches model.ErrTimeout.
	Timeout time.Duration
	// StallTimeout bounds a silence of the server within a call: 5
	// minutes when 0. Its error matches model.ErrTimeout.
	StallTimeout time.Duration
	// NoStream makes Stream ask for a whole answer and deliver it in
	// pieces afterwards.
	NoStream bool
	// Logger receives a warning for each retry; nothing is logged when nil.
	Logger *slog.Logger

	// Rand returns a uniformly random number in [0, 1) for the jitter.
	Rand func() float64
	// Sleep waits d or until ctx is done; a timer when nil.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

// DefaultConfig returns the recommended configuration: Anthropic's base
// URL, 4 retries within 90 seconds, and the timeouts a zero Config has.
// Set the model id and the key on it.
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

// Model is a model.Model and model.Streamer that calls Anthropic's
// Messages API. It is safe for concurrent use.
type Model struct {
	cfg      Config
	endpoint string
	secrets  []string
	desc     model.Description
}

var (
	_ model.Model     = (*Model)(nil)
	_ model.Streamer  = (*Model)(nil)
	_ model.Describer = (*Model)(nil)
)

// New returns a Model for cfg. It fails on an invalid BaseURL, a negative
// MaxRetries or a negative ThinkingBudget.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: base URL %q must be an absolute http(s) URL such as %q", cfg.BaseURL, defaultBaseURL)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("anthropic: MaxRetries is %d; use 0 for no retries, or a positive count such as DefaultConfig's %d",
			cfg.MaxRetries, defaultMaxRetries)
	}
	if cfg.ThinkingBudget < 0 || cfg.MaxTokens < 0 {
		return nil, errors.New("anthropic: ThinkingBudget and MaxTokens cannot be negative; use 0 for the default")
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
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = defaultMaxTokens
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.Path += "/messages"
	u.RawPath = ""
	m := &Model{cfg: cfg, endpoint: u.String()}
	if k := strings.TrimSpace(cfg.APIKey); len(k) >= 4 {
		m.secrets = []string{cfg.APIKey}
	}
	m.desc = model.Description{ID: cfg.Model, Provider: model.ProviderAnthropic, ServerAddress: u.Hostname(), ServerPort: port(u)}
	return m, nil
}

// Describe says what m calls: Config.Model, served by "anthropic" at the
// base URL's host and port.
func (m *Model) Describe() model.Description { return m.desc }

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
// from base (DefaultConfig, say), with the router's model id (DefaultModel
// when it names none), API key (its APIKey, else its AnthropicKey), base
// URL, timeouts, stream setting and thinking budget, when set, taking the
// place of base's.
func Factory(base Config) model.Factory {
	return func(_ string, mc model.ModelConfig) (model.Model, error) {
		c := base
		c.Model = mc.ModelID
		if c.Model == "" {
			c.Model = DefaultModel
		}
		switch {
		case mc.APIKey != "":
			c.APIKey = mc.APIKey
		case mc.AnthropicKey != "":
			c.APIKey = mc.AnthropicKey
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
		if mc.ThinkingBudget > 0 {
			c.ThinkingBudget = mc.ThinkingBudget
		}
		m, err := New(c)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// Generate sends req to the Messages API and returns the assistant's
// answer. Throttling, overload, server errors and connections dropped
// before an answer are retried (see Config); the error returned matches
// model.ErrRateLimited, model.ErrAuth, model.ErrContextLength,
// model.ErrQuota or *model.APIError, or the context's error. An answer
// that cannot be read is an *model.APIError saying "response body
// invalid", never retried.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("anthropic: Generate needs a request")
	}
	ctx, cancel := m.bound(ctx)
	defer cancel()
	resp, err := m.generate(ctx, req)
	return resp, m.callError(ctx, err)
}

func (m *Model) generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	body, err := m.render(req, false)
	if err != nil {
		return nil, err
	}
	resp, err := m.send(ctx, body, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := readMessage(resp, m.redact)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("anthropic: %w while reading the answer: %w", cerr, err)
		}
		return nil, err
	}
	return answer.response(req), nil
}

// send posts body, retrying as Config says, and returns the first
// successful answer with its body unread.
func (m *Model) send(ctx context.Context, body []byte, stream bool) (*http.Response, error) {
	start := m.cfg.Now()
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
		resp, header, err := m.post(ctx, body, stream)
		if err == nil {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(err, cerr) {
				return nil, err
			}
			return nil, fmt.Errorf("anthropic: %w after: %w", cerr, err)
		}
		if !retryable(err) {
			if attempt == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("anthropic: giving up after %d attempts: %w", attempt+1, err)
		}
		if attempt >= m.cfg.MaxRetries {
			if attempt == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("anthropic: giving up after %d attempts (the retry limit): %w", attempt+1, err)
		}
		wait := m.backoff(attempt, retryAfter(header, m.cfg.Now()))
		if elapsed := m.cfg.Now().Sub(start); elapsed+wait > m.cfg.RetryBudget {
			return nil, fmt.Errorf("anthropic: giving up after %d attempts in %s: waiting %s more would exceed the retry budget of %s: %w",
				attempt+1, elapsed.Round(time.Millisecond), wait, m.cfg.RetryBudget, err)
		}
		if m.cfg.Logger != nil {
			m.cfg.Logger.WarnContext(ctx, "anthropic: retrying message", "attempt", attempt+1, "wait", wait, "error", err)
		}
		if serr := m.cfg.Sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("anthropic: %w while waiting %s to retry: %w", serr, wait, err)
		}
	}
}

// post makes one attempt: on a 2xx status the response with its body
// open; otherwise the error and the answer's headers, when one came.
func (m *Model) post(ctx context.Context, body []byte, stream bool) (*http.Response, http.Header, error) {
	ctx, watch := m.watch(ctx, stream)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, watch.Fail(fmt.Errorf("anthropic: message: %w", err))
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Anthropic-Version", apiVersion)
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if m.cfg.APIKey != "" {
		hreq.Header.Set("X-Api-Key", m.cfg.APIKey)
	}
	resp, err := m.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, nil, watch.Fail(fmt.Errorf("anthropic: message: %w", err))
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, resp.Header, watch.Fail(m.statusError(resp))
	}
	resp.Body = watch.Body(resp.Body)
	return resp, resp.Header, nil
}

// backoff is the wait before retry number attempt+1: a uniformly random
// fraction of min(MaxDelay, BaseDelay·2^attempt), or the server's
// retry-after when that is longer.
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
