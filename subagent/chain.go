package subagent

import (
	"context"
	"slices"

	"github.com/offshoot-dev/offshoot/tools"
)

// lineage is where a child stands in its delegation tree: the root
// evaluation's prompt ("ns/key", or "" when the run was started from a
// program's own code) and the names of the subagents from the root's
// child down to it. The engine carries it in the child's context, so the
// tool calls of the child's evaluation — and the children they start —
// find it there.
type lineage struct {
	root   string
	agents []string
}

type lineageKey struct{}

// Chain returns the chain of agents that led to the evaluation ctx belongs
// to, outermost first: the root evaluation's prompt ("ns/key"), then the
// name of each subagent down to this one. It is empty in a root
// evaluation, so an approver (Options.Approve) tells a child's tool call from
// the main agent's by it. The engine refuses a child whose name is in the
// chain already (a cycle).
func Chain(ctx context.Context) []string {
	l, ok := ctx.Value(lineageKey{}).(lineage)
	if !ok {
		return nil
	}
	return l.chain()
}

// Depth returns the depth of the agent whose evaluation ctx belongs to: 0
// for a root evaluation, 1 for its subagents, 2 for theirs.
func Depth(ctx context.Context) int {
	l, _ := ctx.Value(lineageKey{}).(lineage)
	return len(l.agents)
}

// chain is the lineage as Chain gives it.
func (l lineage) chain() []string {
	out := make([]string, 0, 1+len(l.agents))
	if l.root != "" {
		out = append(out, l.root)
	}
	return append(out, l.agents...)
}

// lineageFor returns the lineage a child started from ctx by the tool
// call caller (nil from a program's own code) continues: the one ctx
// carries, or, from a root evaluation's tool call, that evaluation's
// prompt as the root.
func lineageFor(ctx context.Context, caller *tools.Invocation) lineage {
	if l, ok := ctx.Value(lineageKey{}).(lineage); ok {
		return l
	}
	if caller != nil && (caller.PromptNS != "" || caller.PromptKey != "") {
		return lineage{root: caller.PromptNS + "/" + caller.PromptKey}
	}
	return lineage{}
}

// child returns the lineage of a child named name below l.
func (l lineage) child(name string) lineage {
	return lineage{root: l.root, agents: append(slices.Clip(l.agents), name)}
}

// withLineage returns ctx carrying l, for the evaluation of the child it
// ends with.
func withLineage(ctx context.Context, l lineage) context.Context {
	return context.WithValue(ctx, lineageKey{}, l)
}
