package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// wireVersion is the version of the messages below; a worker refuses a
// job of another. Version 2 names a job by its executor and token in
// message ids and cancellations (version 1, by its token alone, mixed up
// the jobs of two programs that number their agents alike). Version 3
// carries the job's secret, and every message about the job a MAC by it
// (see mac.go). Version 4 carries the prompt as the parent rendered it,
// rather than its params. Version 5 names the subject a worker tells the
// parent's AfterTool of each call on, and an approval may rewrite the
// call's arguments: a worker of version 4 would run the model's
// arguments, and tell no PostToolUse hook.
const wireVersion = 5

// Bounds of what a worker accepts from a job message.
const (
	maxJobBytes    = 8 << 20
	maxJobMessages = 10_000
	maxJobTools    = 1024
	maxJobAgents   = 64
	maxIDLen       = 256
)

// job is one child evaluation on the wire (subject offshoot.jobs.<pool>).
type job struct {
	V int `json:"v"`
	// Token is the job's id in subjects: the agent id when it is safe
	// there (a continuation adds _<n>), a hash of it otherwise. ID is
	// the agent id.
	Token string `json:"token"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	// Secret is the job's key for the MACs of the messages about it.
	Secret []byte `json:"secret"`
	// Reply is the subject the worker publishes progress and the result
	// on (offshoot.progress.<executor>.<token>); Approve, when set, the
	// subject it asks before each tool call; AfterTool, when set, the
	// subject it tells of each call that ran, with its result.
	Reply     string `json:"reply"`
	Approve   string `json:"approve,omitempty"`
	AfterTool string `json:"after_tool,omitempty"`
	// Deltas, when set, is the subject to publish the pieces of the
	// child's model answers on as they stream.
	Deltas string `json:"deltas,omitempty"`
	// Where the child stands in its delegation tree.
	Root       string   `json:"root"`
	RootPrompt string   `json:"root_prompt,omitempty"`
	Agents     []string `json:"agents,omitempty"`
	// Schema is the snapshot schema version and Fingerprint the program's
	// registry fingerprint of the dispatching side.
	Schema      string `json:"schema"`
	Fingerprint string `json:"fingerprint"`
	// Needs are what the child needs its worker to have as the parent
	// has it, for a worker of another fingerprint to say which differ.
	Needs []need `json:"needs,omitempty"`
	// Snapshot names the object holding the state the child started from
	// (its sha256), "" for a fresh child; Session is the child's id.
	Snapshot string `json:"snapshot,omitempty"`
	Session  string `json:"session"`
	// The evaluation, as the engine prepared it: the prompt rendered
	// (its text, the names of the tools offered, the Go type of its
	// structured output, if any), then the request's fields.
	NS            string          `json:"ns"`
	Key           string          `json:"key"`
	Text          string          `json:"text"`
	Tools         []string        `json:"tools,omitempty"`
	Output        string          `json:"output,omitempty"`
	Messages      []model.Message `json:"messages,omitempty"`
	UserMessage   string          `json:"user_message,omitempty"`
	Continue      string          `json:"continue,omitempty"`
	ModelName     string          `json:"model"`
	MaxTurns      int             `json:"max_turns,omitempty"`
	Budget        int             `json:"budget,omitempty"`
	OutputRetries int             `json:"output_retries,omitempty"`
	CancelGrace   time.Duration   `json:"cancel_grace,omitempty"`
	CacheKey      string          `json:"cache_key,omitempty"`
	Deadline      time.Time       `json:"deadline,omitzero"`
}

// typed is an event with its type's name in the registry.
type typed struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// progress is batches the child committed on the worker, in order, as
// they were sent while it ran (one message carries those committed since
// the last).
type progress struct {
	Token   string `json:"token"`
	Attempt string `json:"attempt"`
	// Delivery counts the deliveries of the job, this one's included.
	Delivery int     `json:"delivery"`
	Worker   string  `json:"worker"`
	PID      int     `json:"pid"`
	Batches  []batch `json:"batches"`
}

// batch is one batch the child committed, numbered from 1 within its
// attempt (a delivery of the job to one worker).
type batch struct {
	N      int     `json:"n"`
	Events []typed `json:"events,omitempty"`
	// Object names the object the events are in, when they were too big
	// for a message.
	Object string `json:"object,omitempty"`
	// raw is the events' JSON for Object, on the worker until it is
	// stored (publisher.store).
	raw []byte
}

// result is how a job ended on a worker.
type result struct {
	Token    string `json:"token"`
	Attempt  string `json:"attempt"`
	Delivery int    `json:"delivery"`
	Worker   string `json:"worker"`
	PID      int    `json:"pid"`
	// Batches is how many batches the attempt committed: the parent
	// applies all of them before the result. Tail are the last of them,
	// not sent before (all of them, for a short child).
	Batches  int           `json:"batches"`
	Tail     []batch       `json:"tail,omitempty"`
	Response *wireResponse `json:"response,omitempty"`
	Error    *wireError    `json:"error,omitempty"`
}

// wireResponse is what the runner's response says beyond the child's
// records, which the parent reads the rest from (runner.Recorded): which
// evaluation ran, and what this run of it did and spent.
type wireResponse struct {
	Evaluation string        `json:"evaluation"`
	Text       string        `json:"text,omitempty"`
	Usage      model.Usage   `json:"usage"`
	ChildUsage model.Usage   `json:"child_usage"`
	Turns      int           `json:"turns"`
	ToolCalls  int           `json:"tool_calls"`
	ToolsUsed  []string      `json:"tools_used,omitempty"`
	Duration   time.Duration `json:"duration"`
}

// wireError is an evaluation's failure: the runner's phase, the text of
// its cause, and what the cause is (Kind), so that the parent's engine
// classifies it as it would have in process.
type wireError struct {
	Phase   string `json:"phase,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
}

// Kinds of failure.
const (
	kindMaxTurns = "max_turns"
	kindBudget   = "budget"
	kindCanceled = "canceled"
	kindDeadline = "deadline"
	kindMismatch = "mismatch"
	kindWorker   = "worker" // the worker could not run the job at all
)

// token returns id as a subject token: itself when it is made of
// letters, digits, '-' and '_' only (and not too long), else "h" and a
// hash of it.
func token(id string) string {
	if id != "" && len(id) <= 64 && !strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "h" + hex.EncodeToString(sum[:16])
}

// safeToken reports whether s can be one token of a subject.
func safeToken(s string) bool { return s != "" && token(s) == s }

// decodeJob decodes and checks a job message: what a hostile or corrupt
// message gets is an error, never a panic or unbounded work.
func decodeJob(data []byte) (*job, error) {
	if len(data) > maxJobBytes {
		return nil, fmt.Errorf("the job message is %d bytes, over the %d a worker accepts", len(data), maxJobBytes)
	}
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("the job message is not a job: %w", err)
	}
	if j.V != wireVersion {
		return &j, fmt.Errorf("the job message is of wire version %d and this worker reads version %d; run workers of the same release as the program that dispatches", j.V, wireVersion)
	}
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(safeToken(j.Token), "its token %q is not a subject token", clip(j.Token))
	check(len(j.Secret) == secretBytes, "its secret is %d bytes, not %d", len(j.Secret), secretBytes)
	check(j.ID != "" && len(j.ID) <= maxIDLen, "its agent id is empty or too long")
	check(j.Session != "" && len(j.Session) <= maxIDLen, "its session id is empty or too long")
	check(validReply(j.Reply, "offshoot.progress."), "its reply subject %q is not a progress subject", clip(j.Reply))
	check(j.Approve == "" || validReply(j.Approve, "offshoot.approve."), "its approval subject %q is not an approval subject", clip(j.Approve))
	check(j.AfterTool == "" || validReply(j.AfterTool, "offshoot.aftertool."), "its after-tool subject %q is not an after-tool subject", clip(j.AfterTool))
	check(j.Deltas == "" || validReply(j.Deltas, "offshoot.delta."), "its delta subject %q is not a delta subject", clip(j.Deltas))
	check(j.Snapshot == "" || isHash(j.Snapshot), "its snapshot name %q is not a sha256", clip(j.Snapshot))
	check(len(j.Messages) <= maxJobMessages, "it carries %d messages, over %d", len(j.Messages), maxJobMessages)
	check(len(j.Tools) <= maxJobTools, "it names %d tools, over %d", len(j.Tools), maxJobTools)
	check(len(j.Needs) <= maxJobTools+2, "it lists %d needs, over %d", len(j.Needs), maxJobTools+2)
	check(len(j.Agents) <= maxJobAgents, "its delegation chain has %d agents, over %d", len(j.Agents), maxJobAgents)
	check(j.MaxTurns >= 0 && j.Budget >= 0 && j.CancelGrace >= 0, "it has a negative limit")
	if len(errs) > 0 {
		return &j, fmt.Errorf("the job message is invalid: %w", errors.Join(errs...))
	}
	return &j, nil
}

// key names the job among the jobs of every program on the server: its
// executor's id and its token ("<executor>.<token>", the end of its
// reply subject). Message ids and cancellations use it, as two programs
// may give their agents the same ids.
func (j *job) key() string { return strings.TrimPrefix(j.Reply, "offshoot.progress.") }

// validReply reports whether s is prefix followed by two subject tokens.
func validReply(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return false
	}
	a, b, ok := strings.Cut(rest, ".")
	return ok && safeToken(a) && safeToken(b)
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
