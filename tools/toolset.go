package tools

import (
	"context"
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// Toolset is an ordered set of tools with unique names. It is an immutable
// value: methods that change it return a new Toolset. The zero value is an
// empty toolset, ready to use.
type Toolset struct {
	list []Tool
}

// NewToolset returns the toolset of ts, in order. A nil tool or two tools
// with one name are errors.
func NewToolset(ts ...Tool) (Toolset, error) {
	return Toolset{}.With(ts...)
}

// With returns s with ts appended. A nil tool, or a name already in the
// set, is an error, and s is returned unchanged.
func (s Toolset) With(ts ...Tool) (Toolset, error) {
	if len(ts) == 0 {
		return s, nil
	}
	list := make([]Tool, len(s.list), len(s.list)+len(ts))
	copy(list, s.list)
	for i, t := range ts {
		if t == nil {
			return s, fmt.Errorf("tools: tool %d: %w", i, errNilTool)
		}
		name := t.Spec().Name
		if slices.ContainsFunc(list, func(o Tool) bool { return o.Spec().Name == name }) {
			return s, fmt.Errorf("tools: two tools are named %q; tool names must be unique within a toolset", name)
		}
		list = append(list, t)
	}
	return Toolset{list: list}, nil
}

// Len returns the number of tools.
func (s Toolset) Len() int { return len(s.list) }

// At returns the i-th tool; it panics when i is out of range, like
// indexing a slice.
func (s Toolset) At(i int) Tool { return s.list[i] }

// All yields the tools in order.
func (s Toolset) All() iter.Seq[Tool] {
	return func(yield func(Tool) bool) {
		for _, t := range s.list {
			if !yield(t) {
				return
			}
		}
	}
}

// Tools returns the tools in order, in a new slice.
func (s Toolset) Tools() []Tool { return slices.Clone(s.list) }

// Names returns the tool names in order.
func (s Toolset) Names() []string {
	names := make([]string, len(s.list))
	for i, t := range s.list {
		names[i] = t.Spec().Name
	}
	return names
}

// Lookup returns the tool named name.
func (s Toolset) Lookup(name string) (Tool, bool) {
	for _, t := range s.list {
		if t.Spec().Name == name {
			return t, true
		}
	}
	return nil, false
}

// Filter returns the tools f allows, in order. It fails only when f has a
// malformed pattern.
func (s Toolset) Filter(f Filter) (Toolset, error) {
	if err := f.Validate(); err != nil {
		return Toolset{}, err
	}
	var list []Tool
	for _, t := range s.list {
		if f.Allows(t.Spec().Name) {
			list = append(list, t)
		}
	}
	return Toolset{list: list}, nil
}

// Reducers returns the distinct reducer sets the toolset's tools declare
// (see Spec.Reducers), by key, in the order of the tools. Of the sets that
// share a key, the first that has a Seed is kept, else the first.
func (s Toolset) Reducers() []session.Reducers {
	var out []session.Reducers
	for _, t := range s.list {
		r := t.Spec().Reducers
		if r.Key == "" {
			continue
		}
		i := slices.IndexFunc(out, func(o session.Reducers) bool { return o.Key == r.Key })
		switch {
		case i < 0:
			out = append(out, r)
		case len(out[i].Seed) == 0 && len(r.Seed) > 0:
			out[i] = r
		}
	}
	return out
}

// Install installs the reducers of every tool of s on sess, in one write
// (see session.Session.Install). The runner calls it with the session it
// evaluates against.
func (s Toolset) Install(ctx context.Context, sess *session.Session) error {
	if sess == nil {
		return fmt.Errorf("tools: installing a toolset: nil session")
	}
	sets := s.Reducers()
	if len(sets) == 0 {
		return nil
	}
	return sess.Install(ctx, sets...)
}

// Filter selects tools by name. Each entry of Allow and Deny is a tool name
// or a path.Match pattern over names, such as "vfs_*" or "read_?ile". A
// tool passes when Allow is empty or one of its entries matches the name,
// and no entry of Deny matches it: Deny wins. The zero Filter allows every
// tool.
//
// Tools of MCP servers are named mcp__SERVER__TOOL. An entry that names a
// server, "mcp__SERVER", matches every tool of that server, like
// "mcp__SERVER__*" does; "mcp__*" matches every MCP tool, so Deny:
// ["mcp__*"] removes them all.
type Filter struct {
	// Allow lists the tools to keep; empty keeps all.
	Allow []string
	// Deny lists the tools to drop, even when allowed.
	Deny []string
}

// Validate reports the first malformed pattern of f.
func (f Filter) Validate() error {
	for _, list := range [][]string{f.Allow, f.Deny} {
		for _, p := range list {
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("tools: tool filter pattern %q is malformed (%v); use a name or a path.Match pattern such as \"vfs_*\"", p, err)
			}
		}
	}
	return nil
}

// Allows reports whether the tool named name passes f. A malformed pattern
// matches nothing; check patterns with Validate first.
func (f Filter) Allows(name string) bool {
	if len(f.Allow) > 0 && !matchAny(f.Allow, name) {
		return false
	}
	return !matchAny(f.Deny, name)
}

// matchAny reports whether name equals one of patterns, matches it as a
// path.Match pattern, or is a tool of the MCP server it names.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || isServerOf(p, name) {
			return true
		}
		if strings.ContainsAny(p, `*?[\`) {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
	}
	return false
}

// mcpPrefix starts the name of every tool of an MCP server:
// mcp__SERVER__TOOL.
const mcpPrefix = "mcp__"

// isServerOf reports whether p names an MCP server ("mcp__SERVER", no
// further "__" and no pattern characters) and name is one of its tools.
func isServerOf(p, name string) bool {
	server, ok := strings.CutPrefix(p, mcpPrefix)
	if !ok || server == "" || strings.Contains(server, "__") || strings.ContainsAny(server, `*?[\`) {
		return false
	}
	rest, ok := strings.CutPrefix(name, p+"__")
	return ok && rest != ""
}
