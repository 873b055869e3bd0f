package scripted

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/model"
)

// Replayer is a model.Model that answers from a cassette. Each request is
// looked up by the SHA-256 of its canonical JSON, not by position: parallel callers get the same
// answers in any order. When one request was recorded several times, its
// responses are served in recorded order, and the last one is repeated
// once they run out. A Replayer is safe for concurrent use.
type Replayer struct {
	source string
	mu     sync.Mutex
	byHash map[string]*recorded
	count  int
}

var (
	_ model.Model    = (*Replayer)(nil)
	_ model.Streamer = (*Replayer)(nil)
)

type recorded struct {
	req     *model.Request
	entries []entry
	next    int
}

// Replay reads a cassette from r. Every line is checked: a line that is not
// a valid entry, or whose stored hash does not match its request, is an
// error naming the line.
func Replay(r io.Reader) (*Replayer, error) {
	return load(r, "cassette")
}

// ReplayFile reads the cassette at path (see Replay).
func ReplayFile(path string) (*Replayer, error) {
	data, err := regfile.Read(path, maxCassetteBytes) // never a FIFO or a device
	if err != nil {
		return nil, fmt.Errorf("scripted: open cassette: %w", err)
	}
	return load(bytes.NewReader(data), "cassette "+path)
}

// maxCassetteBytes is the largest cassette file ReplayFile reads.
const maxCassetteBytes = 64 << 20

func load(r io.Reader, source string) (*Replayer, error) {
	p := &Replayer{source: source, byHash: map[string]*recorded{}}
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := p.add(line); perr != nil {
				return nil, fmt.Errorf("scripted: %s, line %d: %w", source, lineNo, perr)
			}
		}
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return nil, fmt.Errorf("scripted: read %s: %w", source, err)
		}
	}
}

func (p *Replayer) add(line []byte) error {
	var e entry
	if err := decodeStrict(line, &e); err != nil {
		return err
	}
	if len(e.Request) == 0 || bytes.Equal(e.Request, []byte("null")) {
		return errors.New(`missing "request"`)
	}
	var req model.Request
	if err := decodeStrict(e.Request, &req); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	if (e.Response == nil) == (e.Error == "") {
		return errors.New(`want exactly one of "response" and "error"`)
	}
	if e.ErrorKind != "" {
		if e.Error == "" {
			return errors.New(`"error_kind" without "error"`)
		}
		if (&recordedError{Kind: e.ErrorKind}).Unwrap() == nil {
			return fmt.Errorf("unknown error_kind %q", e.ErrorKind)
		}
	}
	canonical, err := canonicalJSON(&req)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	hash := hashOf(canonical)
	if e.Hash != "" && e.Hash != hash {
		return fmt.Errorf("stored hash %s does not match the request's (%s): the request was edited or the format changed; "+
			"re-record the cassette, or delete the hash to accept the edit", e.Hash, hash)
	}
	rec := p.byHash[hash]
	if rec == nil {
		rec = &recorded{req: &req}
		p.byHash[hash] = rec
	}
	rec.entries = append(rec.entries, e)
	p.count++
	return nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Len returns the number of entries in the cassette.
func (p *Replayer) Len() int { return p.count }

// Generate returns the recorded answer to req, or an error matching
// ErrUnrecorded if the cassette has none.
func (p *Replayer) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("scripted: Generate needs a request")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hash, err := requestHash(req)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	rec := p.byHash[hash]
	if rec == nil {
		p.mu.Unlock()
		return nil, &unrecordedRequestError{Source: p.source, Hash: hash, Request: summarize(req)}
	}
	e := rec.entries[rec.next]
	if rec.next < len(rec.entries)-1 {
		rec.next++
	}
	p.mu.Unlock()
	if e.Error != "" {
		return nil, &recordedError{Message: e.Error, Kind: e.ErrorKind, RetryAfter: e.RetryAfter}
	}
	return e.Response.Clone(), nil
}

// Stream returns the recorded answer to req as Generate does, delivering it
// to fn word by word first (see Chunking).
func (p *Replayer) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	resp, err := p.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	return play(ctx, resp, Chunking{}, fn)
}

// ErrUnrecorded is matched (errors.Is) by the error of a request a
// cassette has no answer for: the prompt, the tools or the conversation
// changed since it was recorded. Its message names the cassette and the
// request's hash and summarizes the request.
var ErrUnrecorded = errors.New("scripted: request not in cassette")

// unrecordedRequestError reports a request that the cassette has no answer
// for: the prompt, the tools or the conversation changed since it was
// recorded.
type unrecordedRequestError struct {
	// Source names the cassette.
	Source string
	// Hash is the request's requestHash.
	Hash string
	// Request summarizes the request.
	Request string
}

// Error names the hash and summarizes the request.
func (e *unrecordedRequestError) Error() string {
	return fmt.Sprintf("scripted: %s has no response for request sha256:%s (%s); "+
		"if the prompt, tools or conversation changed on purpose, re-record the cassette", e.Source, e.Hash, e.Request)
}

// Is reports whether target is ErrUnrecorded.
func (e *unrecordedRequestError) Is(target error) bool { return target == ErrUnrecorded }

// recordedError is an error replayed from a cassette. It matches the model
// package's sentinel of its kind (model.ErrRateLimited, ErrContextLength,
// ErrAuth) with errors.Is.
type recordedError struct {
	// Message is the recorded error text.
	Message string
	// Kind is "rate_limited", "context_length", "auth" or empty.
	Kind string
	// RetryAfter is a rate-limit error's recorded wait.
	RetryAfter time.Duration
}

// Error returns the recorded text.
func (e *recordedError) Error() string { return e.Message }

// Unwrap returns the sentinel of the error's kind — for a rate limit, a
// *model.RateLimitError with the recorded wait — or nil.
func (e *recordedError) Unwrap() error {
	if e.Kind == "rate_limited" {
		return &model.RateLimitError{RetryAfter: e.RetryAfter, Err: model.ErrRateLimited}
	}
	for _, k := range errorKinds {
		if k.kind == e.Kind {
			return k.err
		}
	}
	return nil
}
