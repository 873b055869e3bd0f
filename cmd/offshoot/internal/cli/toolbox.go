package cli

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Toolbox says how to build the tools offshoot gives a main agent.
type Toolbox struct {
	// Files configures the VFS tools (mounts of host directories).
	Files vfs.Options
	// Prompts and Engine serve dispatch_subagent; empty ones when nil.
	Prompts *prompt.Registry
	Engine  *subagent.Engine
}

// MainTools returns the tools offshoot gives a main agent, in the order
// it offers them: the VFS tools, the planning tools, dispatch_subagent and
// Task with TaskOutput and TaskStop (the client's set).
// Agent definitions are checked against these names, and a subagent's
// tools are chosen from them (with the tools of the MCP servers).
func (tb Toolbox) MainTools() (tools.Toolset, error) {
	files, err := vfs.Tools(tb.Files)
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("the file tools: %w", err)
	}
	plan, err := planning.Tools()
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("the planning tools: %w", err)
	}
	prompts, engine := tb.Prompts, tb.Engine
	if prompts == nil {
		prompts = prompt.NewRegistry()
	}
	if engine == nil {
		engine = subagent.New()
	}
	dispatch, err := promptsubagent.Tool(prompts, engine)
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("the dispatch_subagent tool: %w", err)
	}
	delegation, err := task.Tools(agents.Load(agents.Options{NoBuiltins: true}), engine, nil)
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("the Task tools: %w", err)
	}
	return files.With(append(append(plan.Tools(), dispatch), delegation.Tools()...)...)
}
