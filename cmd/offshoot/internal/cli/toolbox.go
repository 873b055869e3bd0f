package cli

import (
	"context"
	"errors"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// MainTools returns the tools offshoot's main agent has in run and chat
// (offshoot.Client.Tools), in the order it is offered them: the file
// tools, the planning tools, Task with TaskOutput and TaskStop, and
// dispatch_subagent over the worker prompt; the tools of the MCP servers
// come with each query and are not among them. Agent definitions are
// checked against these names, and a subagent's tools are chosen from
// them (with the tools of the MCP servers). The tools are a client's
// that runs nothing: use them for their names and descriptions.
func MainTools() (tools.Toolset, error) {
	prompts, err := workerPrompts()
	if err != nil {
		return tools.Toolset{}, err
	}
	c, err := offshoot.NewClient(offshoot.Options{Model: noModel, DispatchSubagent: prompts})
	if err != nil {
		return tools.Toolset{}, err
	}
	defer c.Close()
	return c.Tools(), nil
}

// noModel is the model of a client that lists its tools and is never
// asked anything.
var noModel = model.Func(func(context.Context, *model.Request) (*model.Response, error) {
	return nil, errors.New("offshoot: this client only lists the main agent's tools; it runs no model")
})
