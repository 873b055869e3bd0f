package scripted

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// A cassette is a JSONL file: one entry per line, in the order the calls
// completed.
//
//	{"hash":"<sha256 hex>","request":{…canonical request…},"response":{…}}
//	{"hash":"…","request":{…},"error":"…","error_kind":"rate_limited"}
type entry struct {
	Hash      string          `json:"hash,omitempty"`
	Request   json.RawMessage `json:"request"`
	Response  *model.Response `json:"response,omitempty"`
	Error     string          `json:"error,omitempty"`
	ErrorKind string          `json:"error_kind,omitempty"`
	// RetryAfter is a rate-limit error's wait, in nanoseconds.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}

// Error kinds recorded in cassettes, so that replayed errors still match
// the model package's sentinels with errors.Is.
var errorKinds = []struct {
	kind string
	err  error
}{
	{"rate_limited", model.ErrRateLimited},
	{"context_length", model.ErrContextLength},
	{"auth", model.ErrAuth},
}

// canonicalJSON encodes req as canonical JSON: object keys sorted, no
// insignificant space, numbers as written, no HTML escaping; embedded
// schemas are canonicalized too. The cache key is left out: it routes a
// request, differs from run to run (it is an evaluation's id) and is no
// part of what the request asks.
func canonicalJSON(req *model.Request) ([]byte, error) {
	if req.CacheKey != "" {
		r := *req
		r.CacheKey = ""
		req = &r
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return canonicalize(raw)
}

func canonicalize(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func hashOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// requestHash returns the hex SHA-256 of the canonical JSON of req: the key
// under which cassettes record and replay it.
func requestHash(req *model.Request) (string, error) {
	c, err := canonicalJSON(req)
	if err != nil {
		return "", fmt.Errorf("scripted: hash request: %w", err)
	}
	return hashOf(c), nil
}

// Recorder is a model.Model that passes every call to an inner Model and
// writes the request and its outcome to a cassette. It is safe for
// concurrent use: each entry is written whole, as one line.
type Recorder struct {
	inner  model.Model
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	err    error
}

var (
	_ model.Model     = (*Recorder)(nil)
	_ model.Streamer  = (*Recorder)(nil)
	_ model.Describer = (*Recorder)(nil)
)

// Describe says what the inner model calls (model.Describe).
func (r *Recorder) Describe() model.Description { return model.Describe(r.inner) }

// Record returns a Recorder that writes to w.
func Record(inner model.Model, w io.Writer) *Recorder {
	return &Recorder{inner: inner, w: w}
}

// NewRecorder returns a Recorder that writes to the file at path, creating
// its directory and replacing any previous cassette. Close it when done.
func NewRecorder(inner model.Model, path string) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("scripted: create cassette: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: create cassette: %w", err)
	}
	return &Recorder{inner: inner, w: f, closer: f}, nil
}

// Generate calls the inner model and records the request with its
// response or error. Calls ended by the context are passed through but not
// recorded (they are not deterministic). A failure to write the cassette
// is returned as the error.
func (r *Recorder) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("scripted: Generate needs a request")
	}
	return r.record(ctx, req, func() (*model.Response, error) { return r.inner.Generate(ctx, req) })
}

// Stream streams the inner model's answer to fn (model.Stream: the inner
// model's own streaming, or its whole answer at once) and records the
// request with the complete response, as Generate does. A call stopped by
// fn's error or by the context is not recorded.
func (r *Recorder) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	if req == nil {
		return nil, errStreamNeedsRequest
	}
	if fn == nil {
		fn = func(model.Delta) error { return nil }
	}
	var fnErr error
	resp, err := r.record(ctx, req, func() (*model.Response, error) {
		return model.Stream(ctx, r.inner, req, func(d model.Delta) error {
			fnErr = fn(d)
			return fnErr
		})
	}, func(err error) bool { return fnErr != nil && errors.Is(err, fnErr) })
	return resp, err
}

// record calls the model with call and writes the outcome to the cassette,
// unless the context ended the call or skip says it is not the model's
// outcome.
func (r *Recorder) record(ctx context.Context, req *model.Request, call func() (*model.Response, error), skip ...func(error) bool) (*model.Response, error) {
	canonical, err := canonicalJSON(req)
	if err != nil {
		return nil, fmt.Errorf("scripted: cannot record request: %w", err)
	}
	resp, genErr := call()
	if genErr != nil && (ctx.Err() != nil || errors.Is(genErr, context.Canceled) || errors.Is(genErr, context.DeadlineExceeded)) {
		return resp, genErr
	}
	for _, s := range skip {
		if genErr != nil && s(genErr) {
			return resp, genErr
		}
	}
	e := entry{Hash: hashOf(canonical), Request: canonical}
	if genErr != nil {
		e.Error = genErr.Error()
		for _, k := range errorKinds {
			if errors.Is(genErr, k.err) {
				e.ErrorKind = k.kind
				break
			}
		}
		var rl *model.RateLimitError
		if errors.As(genErr, &rl) {
			e.RetryAfter = rl.RetryAfter
		}
	} else {
		e.Response = resp
	}
	line, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("scripted: record response: %w", err)
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		_, r.err = r.w.Write(line)
	}
	if r.err != nil {
		return nil, fmt.Errorf("scripted: write cassette: %w", r.err)
	}
	return resp, genErr
}

// Close closes the cassette file opened by NewRecorder (a no-op for
// Record) and returns the first write error, if any.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	if r.closer != nil {
		if cerr := r.closer.Close(); err == nil {
			err = cerr
		}
		r.closer = nil
	}
	return err
}
