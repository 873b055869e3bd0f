// Package transcript is the on-disk form of the transcripts a subagent
// engine keeps (subagent.Options.Transcripts): under a directory, a folder
// per delegation tree, named for the tree's root session, holds for each
// agent its conversation, one JSON message per line, and a record of what
// the agent is and how it went:
//
//	<dir>/<root session id>/subagents/agent-<id>.jsonl      the conversation
//	<dir>/<root session id>/subagents/agent-<id>.meta.json  its record (Meta)
//	<dir>/<root session id>/subagents/agent-<id>.output     a background agent's output
//
// Ids are written in a form safe for file names. Dir reads the files back
// (List, Read), prunes them (Prune) and writes them (Create returns a
// Writer). The files may come from a tree offshoot does not control (a
// project's folder checked out of a repository): readers open regular files
// only and bound what they read.
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/model"
)

// Meta is what an agent-<id>.meta.json file records of an agent.
type Meta struct {
	AgentID string `json:"agent_id"`
	// Type is the agent's subagent.Spec.Name: an agent type, a prompt's
	// "ns/key".
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Model       string `json:"model,omitempty"`
	// Mode is "fresh" or "forked": how the agent's state started (empty,
	// or from its parent's); it was resumed, if it was, in the same mode.
	Mode string `json:"mode"`
	// ForkedContext is true when the agent started from an earlier
	// conversation (subagent.Spec.Request.Messages, such as its caller's)
	// instead of its task alone. Such an agent cannot be resumed: a new
	// one carries on the conversation as it is now, instead of a copy
	// that has moved on.
	ForkedContext bool `json:"forked_context,omitempty"`
	Depth         int  `json:"depth"`
	// ParentSessionID is the delegating session; RootSessionID the session
	// at the root of the delegation tree, which names the folder.
	ParentSessionID string `json:"parent_session_id"`
	RootSessionID   string `json:"root_session_id"`
	Background      bool   `json:"background,omitempty"`
	// Status is "running" while the agent runs, then "completed",
	// "failed" or "stopped" (the values of a subagent.TaskStatus); a
	// record read after the process that ran the agent (Owner) ended
	// before the agent did says "interrupted": the agent never finished.
	Status string `json:"status"`
	// Owner is the process that runs or ran the agent; a Writer sets it.
	Owner *Owner `json:"owner,omitempty"`
	// Error is why it failed or stopped.
	Error      string    `json:"error,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Runs counts the agent's runs: 1, and one more for each resume.
	Runs int `json:"runs"`
	// Usage is what all its runs spent: a subagent.Usage, which is
	// assignable to it and from it.
	Usage struct {
		// Own is the agent's own model usage; Total adds what its own
		// children spent.
		Own   model.Usage `json:"own"`
		Total model.Usage `json:"total"`
		// ModelCalls counts the agent's model calls.
		ModelCalls int `json:"model_calls"`
		// ToolCalls counts the agent's tool calls by tool name.
		ToolCalls map[string]int `json:"tool_calls,omitempty"`
	} `json:"usage"`
}

// Transcript is one agent's transcript as read back.
type Transcript struct {
	Meta Meta
	// Path is the transcript's .jsonl file.
	Path string
	// Messages is the conversation, the task prompt first: the first user
	// message, or the system message of an agent whose task was in its
	// prompt (subagent.Spec.TaskInPrompt).
	Messages []model.Message

	tail tail // where a Writer that goes on with the conversation appends
}

// Dir is the directory transcripts are kept under (the one given as
// subagent.Options.Transcripts); "" is none. Its methods read, prune and
// write the files under it; it holds no state.
type Dir string

// maxTranscriptBytes bounds what Read and Load load of one transcript.
const maxTranscriptBytes = 256 << 20

// maxMetaBytes bounds what is read of an agent's record (.meta.json).
const maxMetaBytes = 1 << 20

// The statuses a reader handles: a record of a running agent whose
// process ended reads as interrupted.
const (
	statusRunning     = "running"
	statusInterrupted = "interrupted"
)

// List returns the records of every agent under d, oldest first. A
// record that cannot be read is left out, and the problem joined in the
// error returned with the others.
func (d Dir) List() ([]Meta, error) {
	dirs, err := d.folders()
	var out []Meta
	errs := []error{err}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "agent-") || !strings.HasSuffix(e.Name(), extMeta) {
				continue
			}
			m, err := readMeta(filepath.Join(dir, e.Name()))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Meta) int { return a.StartedAt.Compare(b.StartedAt) })
	return out, errors.Join(errs...)
}

// Read returns the transcript of the agent with the given id, whichever
// root session it ran under (the most recently updated, should two roots
// hold one id). An unknown id is an error that matches fs.ErrNotExist,
// whose text is "No agent found with ID: <id>". A torn last line — a
// write cut short — is left out; any other line that is not a message is
// an error naming it.
func (d Dir) Read(agentID string) (*Transcript, error) {
	dirs, err := d.folders()
	if err != nil {
		return nil, err
	}
	name := "agent-" + safeName(agentID)
	var base string
	var newest time.Time
	for _, dir := range dirs {
		fi, err := os.Stat(filepath.Join(dir, name+extTranscript))
		if err == nil && (base == "" || fi.ModTime().After(newest)) {
			base, newest = filepath.Join(dir, name), fi.ModTime()
		}
	}
	if base == "" {
		return nil, notFound(agentID)
	}
	return readTranscript(base, agentID)
}

// Load returns the transcript of the agent with the given id in the
// delegation tree whose root session is root, read as Read reads one:
// what an engine resumes the agent from. A Writer made with it (Create)
// goes on with the conversation.
func (d Dir) Load(root, agentID string) (*Transcript, error) {
	return readTranscript(d.base(root, agentID), agentID)
}

// LoadMeta returns the record of the agent with the given id in the
// delegation tree whose root session is root. A missing record is an
// error that matches fs.ErrNotExist.
func (d Dir) LoadMeta(root, agentID string) (Meta, error) {
	return readMeta(d.base(root, agentID) + extMeta)
}

// Paths returns where the agent with the given id in the delegation tree
// whose root session is root has its transcript and its output (which
// only an agent that ran in the background has).
func (d Dir) Paths(root, agentID string) (transcript, output string) {
	base := d.base(root, agentID)
	return base + extTranscript, base + extOutput
}

// folders returns the subagents folders under d, one per root session.
func (d Dir) folders() ([]string, error) {
	roots, err := os.ReadDir(string(d))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, r := range roots {
		if r.IsDir() {
			out = append(out, filepath.Join(string(d), r.Name(), "subagents"))
		}
	}
	return out, nil
}

// Prune removes the files of every agent none of whose files changed
// since before (for "older than 30 days", time.Now().AddDate(0, 0, -30)),
// then the folders it left empty. It returns how many agents it removed;
// problems are joined in the error, and pruning goes on past them.
func (d Dir) Prune(before time.Time) (int, error) {
	dirs, err := d.folders()
	removed := 0
	errs := []error{err}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		agents := map[string][]fs.DirEntry{}
		newest := map[string]time.Time{}
		for _, e := range entries {
			id, ok := agentFile(e.Name())
			if !ok || !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			agents[id] = append(agents[id], e)
			if fi.ModTime().After(newest[id]) {
				newest[id] = fi.ModTime()
			}
		}
		for _, id := range slices.Sorted(maps.Keys(agents)) {
			if !newest[id].Before(before) {
				continue
			}
			var failed bool
			for _, e := range agents[id] {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs, failed = append(errs, err), true
				}
			}
			if !failed {
				removed++
			}
		}
		// Only empty folders go; a folder still in use is left alone.
		_ = os.Remove(dir)
		_ = os.Remove(filepath.Dir(dir))
	}
	return removed, errors.Join(errs...)
}

// agentFile returns the agent part of the name of an agent's file.
func agentFile(name string) (string, bool) {
	if !strings.HasPrefix(name, "agent-") {
		return "", false
	}
	for _, ext := range []string{extTranscript, extMeta, extOutput} {
		if s, ok := strings.CutSuffix(name, ext); ok {
			return s, true
		}
	}
	return "", false
}

func readMeta(path string) (Meta, error) {
	var m Meta
	data, err := regfile.Read(path, maxMetaBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("subagent: the agent record %s is damaged: %w", path, err)
	}
	if m.Status == statusRunning && m.Owner.gone() {
		m.Status = statusInterrupted
	}
	return m, nil
}

// readTranscript reads the transcript and the record of agent id at base.
// A missing record leaves Meta with the id alone.
func readTranscript(base, id string) (*Transcript, error) {
	path := base + extTranscript
	f, err := regfile.Open(path) // never a FIFO or a device
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(id)
		}
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxTranscriptBytes {
		return nil, fmt.Errorf("subagent: the transcript %s is %d bytes, more than the %d it may hold to be read", path, fi.Size(), maxTranscriptBytes)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	msgs, tail, err := parseTranscript(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("subagent: the transcript %s is damaged: %w", path, err)
	}
	tr := &Transcript{Path: path, Messages: msgs, Meta: Meta{AgentID: id}, tail: tail}
	if m, err := readMeta(base + extMeta); err == nil {
		tr.Meta = m
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tr, err
	}
	return tr, nil
}

// notFoundError is the error of a lookup of an unknown agent.
type notFoundError struct{ id string }

func notFound(id string) error { return &notFoundError{id: id} }

func (e *notFoundError) Error() string { return "No agent found with ID: " + clip(e.id) }

// Is matches fs.ErrNotExist.
func (e *notFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// clip cuts an id to a length fit to be shown back.
func clip(id string) string {
	const maxEcho = 100
	if len(id) <= maxEcho {
		return id
	}
	return strings.ToValidUTF8(id[:maxEcho], "") + "…"
}

// tail says how to append to a transcript that was read: keep its first
// keep bytes (its complete lines), then add a newline when the last line
// kept has none.
type tail struct {
	set     bool
	keep    int64
	newline bool
}

// parseTranscript reads a transcript's lines. Blank lines are skipped; a
// last line that is not a message is taken for a write cut short and left
// out; any other is an error.
func parseTranscript(data []byte) ([]model.Message, tail, error) {
	t := tail{set: true}
	lines := bytes.Split(data, []byte{'\n'})
	last := len(lines) - 1
	for last >= 0 && len(bytes.TrimSpace(lines[last])) == 0 {
		last--
	}
	var msgs []model.Message
	var off int64
	for i, line := range lines[:last+1] {
		end := off + int64(len(line))
		complete := i < len(lines)-1 // a newline follows it
		if len(bytes.TrimSpace(line)) > 0 {
			m, err := parseLine(line)
			if err != nil {
				if i == last && !complete && cutShort(line) {
					break // torn: a write the process did not finish
				}
				return nil, t, fmt.Errorf("line %d: %w; the transcript was left as it is", i+1, err)
			}
			msgs = append(msgs, m)
		}
		t.keep, t.newline = end, !complete
		if complete {
			t.keep++
		}
		off = end + 1
	}
	return msgs, t, nil
}

// cutShort reports whether line is the start of a JSON object that ends
// too soon: what a write cut short leaves. Anything else on a last line
// is damage, not a torn write.
func cutShort(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	var v any
	return errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(&v), io.ErrUnexpectedEOF)
}

func parseLine(line []byte) (model.Message, error) {
	var m model.Message
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a message: %w", err)
	}
	if dec.More() {
		return m, errors.New("not a message: more than one JSON value on the line")
	}
	if !m.Role.Valid() {
		return m, fmt.Errorf("not a message: the role %q is not system, user, assistant or tool", m.Role)
	}
	return m, nil
}
