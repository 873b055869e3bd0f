package task

import (
	"context"
	"fmt"
)

// A call with run_in_background — or of an agent whose definition sets
// background: true — starts the agent on the engine (Engine.Start) and
// returns at once, with the task's id (which is the agent's) and its
// output file. The agent runs on under the run's context, not the call's:
// it outlives the call and the turn, and ends, as stopped, when the run's
// context is cancelled or TaskStop stops it. When it ends, the engine adds
// a <task-notification> with its result to its caller's next model call;
// TaskOutput reads its output before then.
//
// The files a background agent writes stay in its own session: its caller
// may have moved on, so nothing is copied back into its state. What
// matters of its work is in its result.

// background starts the agent and fills res with the launch.
func (d *delegator) background(ctx context.Context, run *childRun, res *Result) ([]any, error) {
	t, err := d.engine.Start(ctx, run.spec)
	if err != nil {
		return nil, &failure{msg: d.failureText(run, err)}
	}
	res.launched(run.def.Name, run.modelShown(), t.ID(), t.OutputFile())
	return []any{t.Started()}, nil
}

// launched fills r for an agent started in the background.
func (r *Result) launched(agentType, modelName, id, outputFile string) {
	r.Status, r.Data.Status = StatusAsyncLaunched, StatusAsyncLaunched
	r.AgentID, r.TaskID, r.OutputFile = id, id, outputFile
	r.Data.AgentID, r.Data.TaskID, r.Data.OutputFile = id, id, outputFile
	r.Text = fmt.Sprintf("Subagent (%s, %s) started in the background as task %s. "+
		"Its result will come to you in a task notification when it ends; go on with other work meanwhile. "+
		"To read its output before then, call TaskOutput with task_id %s; to stop it, call TaskStop.", agentType, modelName, id, id)
	r.ShortResult = "Task started in the background by " + agentType
}
