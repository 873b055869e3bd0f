package subagent

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

// TranscriptMeta is what an agent-<id>.meta.json file records of an agent.
type TranscriptMeta struct {
	AgentID string `json:"agent_id"`
	// Type is the agent's Spec.Name: an agent type, a prompt's "ns/key".
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Model       string `json:"model,omitempty"`
	// Mode is "fresh" or "forked": how the agent's state started (empty,
	// or from its parent's); it was resumed, if it was, in the same mode.
	Mode string `json:"mode"`
	// ForkedContext is true when the agent started from an earlier
	// conversation (Spec.Request.Messages, such as its caller's) instead of its
	// task alone. Such an agent cannot be resumed: a new one carries on
	// the conversation as it is now, instead of a copy that has moved on.
	ForkedContext bool `json:"forked_context,omitempty"`
	Depth         int  `json:"depth"`
	// ParentSessionID is the delegating session; RootSessionID the session
	// at the root of the delegation tree, which names the folder.
	ParentSessionID string `json:"parent_session_id"`
	RootSessionID   string `json:"root_session_id"`
	Background      bool   `json:"background,omitempty"`
	// Status is running while the agent runs, then completed, failed or
	// stopped; a record read after the process that ran the agent ended
	// before it did (Owner) says interrupted.
	Status TaskStatus `json:"status"`
	// Owner is the process that runs or ran the agent.
	Owner *Owner `json:"owner,omitempty"`
	// Error is why it failed or stopped.
	Error      string    `json:"error,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Runs counts the agent's runs: 1, and one more for each resume.
	Runs int `json:"runs"`
	// Usage is what all its runs spent.
	Usage Usage `json:"usage"`
}

// Transcript is one agent's transcript as read back.
type Transcript struct {
	Meta TranscriptMeta
	// Path is the transcript's .jsonl file.
	Path string
	// Messages is the conversation, the task prompt first: the first user
	// message, or the system message of an agent whose task was in its
	// prompt (Spec.TaskInPrompt).
	Messages []model.Message
}

// Transcripts reads and prunes the transcripts an engine keeps under Dir
// (the folder given as Options.Transcripts): what a command line needs to
// list, show and prune them. It holds no state.
type Transcripts struct {
	Dir string
}

// maxTranscriptBytes bounds what Read loads of one transcript.
const maxTranscriptBytes = 256 << 20

// maxMetaBytes bounds what is read of an agent's record (.meta.json).
const maxMetaBytes = 1 << 20

// List returns the records of every agent under Dir, oldest first. A
// record that cannot be read is left out, and the problem joined in the
// error returned with the others.
func (t Transcripts) List() ([]TranscriptMeta, error) {
	dirs, err := t.folders()
	var out []TranscriptMeta
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
	slices.SortStableFunc(out, func(a, b TranscriptMeta) int { return a.StartedAt.Compare(b.StartedAt) })
	return out, errors.Join(errs...)
}

// Read returns the transcript of the agent with the given id, whichever
// root session it ran under (the most recently updated, should two roots
// hold one id). An unknown id is ErrTaskNotFound. A torn last line — a
// write cut short — is left out; any other line that is not a message is
// an error naming it.
func (t Transcripts) Read(agentID string) (*Transcript, error) {
	dirs, err := t.folders()
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
		return nil, agentNotFound(agentID)
	}
	tr, _, err := readTranscript(base, agentID)
	return tr, err
}

// folders returns the subagents folders under Dir, one per root session.
func (t Transcripts) folders() ([]string, error) {
	roots, err := os.ReadDir(t.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, r := range roots {
		if r.IsDir() {
			out = append(out, filepath.Join(t.Dir, r.Name(), "subagents"))
		}
	}
	return out, nil
}

// Prune removes the files of every agent none of whose files changed
// since before (for "older than 30 days", time.Now().AddDate(0, 0, -30)),
// then the folders it left empty. It returns how many agents it removed;
// problems are joined in the error, and pruning goes on past them.
func (t Transcripts) Prune(before time.Time) (int, error) {
	dirs, err := t.folders()
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

func readMeta(path string) (TranscriptMeta, error) {
	var m TranscriptMeta
	data, err := regfile.Read(path, maxMetaBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("subagent: the agent record %s is damaged: %w", path, err)
	}
	if m.Status == TaskStatusRunning && m.Owner.gone() {
		m.Status = TaskStatusInterrupted
	}
	return m, nil
}

// readTranscript reads the transcript and the record of agent id at base.
// A missing record leaves Meta with the id alone.
func readTranscript(base, id string) (*Transcript, transcriptTail, error) {
	path := base + extTranscript
	f, err := regfile.Open(path) // never a FIFO or a device
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, transcriptTail{}, agentNotFound(id)
		}
		return nil, transcriptTail{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxTranscriptBytes {
		return nil, transcriptTail{}, fmt.Errorf("subagent: the transcript %s is %d bytes, more than the %d it may hold to be read", path, fi.Size(), maxTranscriptBytes)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, transcriptTail{}, err
	}
	msgs, tail, err := parseTranscript(buf.Bytes())
	if err != nil {
		return nil, tail, fmt.Errorf("subagent: the transcript %s is damaged: %w", path, err)
	}
	tr := &Transcript{Path: path, Messages: msgs, Meta: TranscriptMeta{AgentID: id}}
	if m, err := readMeta(base + extMeta); err == nil {
		tr.Meta = m
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tr, tail, err
	}
	return tr, tail, nil
}

// transcriptTail says how to append to a transcript that was read: keep
// its first keep bytes (its complete lines), then add a newline when the
// last line kept has none.
type transcriptTail struct {
	set     bool
	keep    int64
	newline bool
}

// parseTranscript reads a transcript's lines. Blank lines are skipped; a
// last line that is not a message is taken for a write cut short and left
// out; any other is an error.
func parseTranscript(data []byte) ([]model.Message, transcriptTail, error) {
	tail := transcriptTail{set: true}
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
				return nil, tail, fmt.Errorf("line %d: %w; the transcript was left as it is", i+1, err)
			}
			msgs = append(msgs, m)
		}
		tail.keep, tail.newline = end, !complete
		if complete {
			tail.keep++
		}
		off = end + 1
	}
	return msgs, tail, nil
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

// plus returns u with o's spending added.
func (u Usage) plus(o Usage) Usage {
	out := Usage{Own: u.Own.Add(o.Own), Total: u.Total.Add(o.Total), ModelCalls: u.ModelCalls + o.ModelCalls}
	if len(u.ToolCalls)+len(o.ToolCalls) > 0 {
		out.ToolCalls = make(map[string]int, len(u.ToolCalls)+len(o.ToolCalls))
		for k, v := range u.ToolCalls {
			out.ToolCalls[k] += v
		}
		for k, v := range o.ToolCalls {
			out.ToolCalls[k] += v
		}
	}
	return out
}
