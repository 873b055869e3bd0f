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

// needs are what the child of the job, offered rendered, needs.
func (s Setup) needs(name string, rendered *prompt.Rendered) []need {
	out := make([]need, 0, rendered.Tools.Len()+2)
	for t := range rendered.Tools.All() {
		out = append(out, need{Kind: "tool", Name: t.Spec().Name, Hash: toolHash(t)})
	}
	if d, ok := s.agent(name); ok {
		out = append(out, need{Kind: "agent", Name: d.Name, Hash: agentHash(d)})
	}
	if p, ok := s.prompt(rendered.NS, rendered.Key); ok {
		out = append(out, need{Kind: "prompt", Name: rendered.NS + "/" + rendered.Key, Hash: promptHash(p)})
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
			lines = append(lines, fmt.Sprintf("the worker lacks %s '%s'", n.Kind, clip(n.Name)))
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
