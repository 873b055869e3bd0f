package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// need is one thing a child needs its worker to have as its parent has
// it, with a hash of its definition: a tool it is offered (its contract),
// the agent it plays (its definition), its prompt (its descriptor). A job
// carries its child's needs, so that a worker of another fingerprint says
// which of them differ, not only that the programs do.
type need struct {
	Kind string `json:"kind"` // "tool", "agent", "prompt"
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// index is the hashes of what a setup registers, by kind and name
// ("tool", "bash"), made once per executor: a job's needs are looked up
// in it rather than hashed again for every job.
type index map[need]string

// index hashes what the setup registers.
func (s Setup) index() index {
	idx := index{}
	for t := range s.Tools.All() {
		idx[need{Kind: "tool", Name: t.Spec().Name}] = toolHash(t)
	}
	if s.Agents != nil {
		for _, d := range s.Agents.All() {
			idx[need{Kind: "agent", Name: d.Name}] = agentHash(d)
		}
	}
	if s.Prompts != nil {
		for p := range s.Prompts.All() {
			idx[need{Kind: "prompt", Name: p.NS() + "/" + p.Key()}] = promptHash(p)
		}
	}
	return idx
}

// needs are what the child name, offered rendered, needs: the setup's
// tools of the names it is offered (a tool the setup lacks, by its own
// contract), the agent of its name and its prompt, where the setup has
// them.
func (idx index) needs(name string, rendered *prompt.Rendered) []need {
	out := make([]need, 0, rendered.Tools.Len()+2)
	for t := range rendered.Tools.All() {
		n := need{Kind: "tool", Name: t.Spec().Name}
		var ok bool
		if n.Hash, ok = idx[n]; !ok {
			n.Hash = toolHash(t)
		}
		out = append(out, n)
	}
	for _, n := range []need{{Kind: "agent", Name: name}, {Kind: "prompt", Name: rendered.NS + "/" + rendered.Key}} {
		if h, ok := idx[n]; ok {
			n.Hash = h
			out = append(out, n)
		}
	}
	return out
}

// unmet says which of needs this setup does not have as the parent has
// them, in plain words ("" when it has them all).
func (s Setup) unmet(needs []need) string {
	var lines []string
	for _, n := range needs {
		hash, ok := "", false
		switch n.Kind {
		case "tool":
			var t tools.Tool
			if t, ok = s.Tools.Lookup(n.Name); ok {
				hash = toolHash(t)
			}
		case "agent":
			var d agents.Definition
			if d, ok = s.agent(n.Name); ok {
				hash = agentHash(d)
			}
		case "prompt":
			ns, key, _ := strings.Cut(n.Name, "/")
			var p *prompt.Prompt
			if p, ok = s.prompt(ns, key); ok {
				hash = promptHash(p)
			}
		default:
			continue
		}
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("the worker has no %s '%s'", n.Kind, clip(n.Name)))
		case hash != n.Hash:
			lines = append(lines, fmt.Sprintf("%s '%s' differs", n.Kind, clip(n.Name)))
		}
	}
	return strings.Join(lines, "; ")
}

func (s Setup) agent(name string) (agents.Definition, bool) {
	if s.Agents == nil {
		return agents.Definition{}, false
	}
	for _, d := range s.Agents.All() {
		if d.Name == name {
			return d, true
		}
	}
	return agents.Definition{}, false
}

func (s Setup) prompt(ns, key string) (*prompt.Prompt, bool) {
	if s.Prompts == nil {
		return nil, false
	}
	p, err := s.Prompts.Lookup(ns, key)
	return p, err == nil
}

func toolHash(t tools.Tool) string {
	sp := t.Spec()
	return hashJSON([]any{sp.Name, sp.Description, sp.Params, sp.Result})
}

func agentHash(d agents.Definition) string {
	return hashJSON([]any{d.Name, d.Description, d.Prompt, d.Tools, d.DisallowedTools, d.Model, d.MaxTurns, d.ForkContext})
}

// promptHash hashes the prompt's templates, tools and output.
func promptHash(p *prompt.Prompt) string {
	var output []any
	if out := p.Output(); out != nil {
		output = []any{typeKey(out.Type()), out.Schema()}
	}
	return hashJSON([]any{p.Descriptor().Hash(), output})
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
