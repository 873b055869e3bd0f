// Package openai adapts any OpenAI-compatible Chat Completions server
// (OpenAI, vLLM, llama.cpp server, Ollama, …) to model.Model, on top of
// github.com/sashabaranov/go-openai.
//
// It maps tools to function tools, tool calls and tool results both ways,
// usage and finish reasons; structured output to response_format
// json_schema (strict schemas are rewritten as strict mode requires, and
// the answer is mapped back); provider errors to the model package's error
// kinds; and it retries throttling (429), server errors (5xx) and dropped
// or refused connections with
// exponential backoff and full jitter, honouring Retry-After, within a
// total time budget and the context.
package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	gopenai "github.com/sashabaranov/go-openai"

	"github.com/offshoot-dev/offshoot/model"
)

// Defaults used for the zero values of Config fields.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultMaxRetries  = 4
	DefaultRetryBudget = 90 * time.Second
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
)

// Config configures a Model. The zero value of every field is usable.
type Config struct {
	// BaseURL is the API root, such as "http://localhost:8000/v1";
	// DefaultBaseURL when empty.
	BaseURL string
	// APIKey is sent as a bearer token; none is sent when empty (local
	// servers).
	APIKey string
	// Model is the model id used when a Request does not name one.
	Model string
	// HTTPClient sends the requests; a new http.Client when nil. The Model
	// uses a shallow copy whose Transport is wrapped to read response
	// headers (Retry-After); the client given is not modified.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed call is retried after the
	// first attempt: DefaultMaxRetries when 0, none when negative.
	MaxRetries int
	// RetryBudget bounds the total time of a call including retries and
	// waits: DefaultRetryBudget when 0. A wait that would end past the
	// budget is not started; the last error is returned instead.
	RetryBudget time.Duration
	// BaseDelay is the backoff before the first retry; it doubles with
	// each retry up to MaxDelay, and the actual wait is a uniformly random
	// fraction of it (full jitter). DefaultBaseDelay when 0.
	BaseDelay time.Duration
	// MaxDelay caps the backoff (not Retry-After): DefaultMaxDelay when 0.
	MaxDelay time.Duration
	// LegacyMaxTokens sends Request.MaxTokens as max_tokens, for servers
	// that do not know max_completion_tokens (the current OpenAI field,
	// used by default).
	LegacyMaxTokens bool
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

// Model is a model.Model that calls an OpenAI-compatible Chat Completions
// endpoint. It is safe for concurrent use.
type Model struct {
	cfg    Config
	client *gopenai.Client
}

var _ model.Model = (*Model)(nil)

// New returns a Model for cfg. It fails only on an invalid BaseURL.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q must be an absolute http(s) URL such as %q", cfg.BaseURL, DefaultBaseURL)
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.RetryBudget <= 0 {
		cfg.RetryBudget = DefaultRetryBudget
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = DefaultBaseDelay
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = DefaultMaxDelay
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
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	hc.Transport = &headerTransport{base: hc.Transport}
	cfg.HTTPClient = hc

	occ := gopenai.DefaultConfig(cfg.APIKey)
	occ.BaseURL = cfg.BaseURL
	occ.HTTPClient = hc
	return &Model{cfg: cfg, client: gopenai.NewClientWithConfig(occ)}, nil
}

// Factory returns a model.Factory for model.NewRouter that builds Models
// from base, with the router's model id, API key and base URL (when set)
// taking the place of base's.
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
		m, err := New(c)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// Generate sends req to the Chat Completions endpoint and returns the
// assistant's answer. Throttling and server errors are retried (see
// Config); the error returned matches model.ErrRateLimited,
// model.ErrAuth, model.ErrContextLength or *model.APIError with
// errors.Is/As, or the context's error.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("openai: Generate needs a request")
	}
	creq, out, err := m.chatRequest(req)
	if err != nil {
		return nil, err
	}
	start := m.cfg.Now()
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		var header http.Header
		resp, err := m.client.CreateChatCompletion(withHeaderSink(ctx, &header), creq)
		if err == nil {
			return convertResponse(resp, out)
		}
		merr := m.mapError(err, header)
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(merr, cerr) {
				return nil, merr
			}
			return nil, fmt.Errorf("openai: %w after: %w", cerr, merr)
		}
		if !retryable(merr) {
			return nil, giveUp(attempt, merr)
		}
		if attempt >= max(m.cfg.MaxRetries, 0) {
			return nil, fmt.Errorf("openai: giving up after %d attempts (the retry limit): %w", attempt+1, merr)
		}
		wait := m.backoff(attempt, retryAfter(header, m.cfg.Now()))
		if elapsed := m.cfg.Now().Sub(start); elapsed+wait > m.cfg.RetryBudget {
			return nil, fmt.Errorf("openai: giving up after %d attempts in %s: waiting %s more would exceed the retry budget of %s: %w",
				attempt+1, elapsed.Round(time.Millisecond), wait, m.cfg.RetryBudget, merr)
		}
		if m.cfg.Logger != nil {
			m.cfg.Logger.WarnContext(ctx, "openai: retrying chat completion",
				"attempt", attempt+1, "wait", wait, "error", merr)
		}
		if err := m.cfg.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("openai: %w while waiting %s to retry: %w", err, wait, merr)
		}
	}
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
