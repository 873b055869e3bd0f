package agents

import (
	"path"
	"slices"

	"github.com/offshoot-dev/offshoot/tools"
)

// ResolveTools returns the tools a child run of d gets, from its caller's
// tools (parent, plus the tools of d's own MCP servers when the caller
// adds them): the tools d.DisallowedTools names are removed; when d.Tools
// is not nil only the tools it names are kept; and at the depth limit the
// delegation tools (Task, TaskOutput, TaskStop) are removed too. Entries
// are names or path.Match patterns; Claude Code names (Read, Edit,
// TodoWrite, …) stand for offshoot's tools.
//
// When d.Tools names tools and none of them is left, the error is a
// *MissingToolsError ("Subagent lacks permission for required tools:
// [Bash]"): an agent that asked for tools never runs with every tool, nor
// with none, by accident. An empty, non-nil d.Tools gives no tools, without
// error.
func (d Definition) ResolveTools(parent tools.Toolset, atDepthLimit bool) (tools.Toolset, error) {
	names := parent.Names()
	has := func(name string) bool { return slices.Contains(names, name) }
	match := func(pattern string) bool {
		return slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(pattern, n); return ok })
	}
	deny := canonicalTools(d.DisallowedTools, true, has, match)
	if atDepthLimit {
		deny = append(deny, delegationTools...)
	}
	var allow []string
	if d.Tools != nil {
		allow = canonicalTools(d.Tools, false, has, match)
		if len(allow) == 0 {
			return d.missing()
		}
	}
	out, err := parent.Filter(tools.Filter{Allow: allow, Deny: deny})
	if err != nil {
		return tools.Toolset{}, err
	}
	if d.Tools != nil && out.Len() == 0 {
		return d.missing()
	}
	return out, nil
}

// missing is the outcome of a tools list that leaves nothing: no tools for
// an empty list, a *MissingToolsError otherwise.
func (d Definition) missing() (tools.Toolset, error) {
	if len(d.Tools) == 0 {
		return tools.Toolset{}, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, t := range d.Tools {
		if !seen[t] {
			seen[t] = true
			names = append(names, t)
		}
	}
	return tools.Toolset{}, &MissingToolsError{Tools: names}
}
