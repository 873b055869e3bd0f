package task_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// FuzzInput feeds arbitrary arguments to the Task tool, as a model might
// write them: a call is either refused as invalid, naming what is wrong, or
// answered with a Result whose text is what the model reads — never a
// crash, never a hang, and the caller's session is not written to.
func FuzzInput(f *testing.F) {
	for _, s := range []string{
		`{"description":"Find the login code","prompt":"Where is Login?","subagent_type":"reader"}`,
		`{"description":"Review","prompt":"Review src/login.go","subagent_type":"Code Reviewer","model":"main","max_turns":3,"name":"r1","team_name":"t","mode":"plan"}`,
		`{"description":"Carry on","prompt":"Carry on.","subagent_type":"forker","model":"haiku"}`,
		`{"description":"Run tests","prompt":"go test","subagent_type":"shell"}`,
		`{"description":"x","prompt":"y","subagent_type":"nobody"}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","run_in_background":true}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","resume":"agent-1"}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","resume":"agent-1","run_in_background":true,"model":"light"}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","model":"gpt-9"}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","max_turns":-5}`,
		`{"description":"","prompt":"","subagent_type":""}`,
		`{"description":"\u00e9t\u00e9 \ud83c\udf0d","prompt":"{{ .X }}","subagent_type":"READER"}`,
		`{"description":"a\nb","prompt":"p","subagent_type":"reader"}`,
		`{"description":"x","prompt":"y","subagent_type":"reader","extra":1}`,
		`{"description":1,"prompt":null,"subagent_type":[]}`,
		`[]`, `null`, `{`, ``, `{"description":"x"} trailing`,
	} {
		f.Add([]byte(s))
	}
	w := newWorld(f, worldConfig{
		engine: subagent.Options{Timeout: 5 * time.Second},
		main:   []scripted.Turn{scripted.Repeat(scripted.Text("done on main"))},
		light:  []scripted.Turn{scripted.Repeat(scripted.Text("done on light"))},
	})
	caller := scripted.New(scripted.Repeat(scripted.Text("done on the caller's model")))
	f.Fuzz(func(t *testing.T, data []byte) {
		rev, inbound := w.s.Revision(), session.Len[runner.Inbound](w.s)
		out := w.call(t, caller, string(data))
		if res, ok := out.Value.(task.Result); ok && res.Data.Status == "async_launched" {
			// A background agent's end adds its notification, and only
			// that.
			bg, err := w.engine.Tasks().Get(res.Data.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bg.Wait(within(t)); err != nil {
				t.Fatal(err)
			}
			rev, inbound = rev+1, inbound+1
		}
		if w.s.Revision() != rev || session.Len[runner.Inbound](w.s) != inbound {
			t.Fatal("a call wrote to the caller's session")
		}
		if out.Err != nil {
			var ve *tools.ValidationError
			if !errors.As(out.Err, &ve) || !strings.HasPrefix(out.Text, "Tool validation failed: Task: ") {
				t.Fatalf("a call failed with %T: %s", out.Err, out.Text)
			}
			return
		}
		res, ok := out.Value.(task.Result)
		if !ok {
			t.Fatalf("the value is a %T", out.Value)
		}
		if out.Text != res.Text {
			t.Fatalf("the model reads %q, the result says %q", out.Text, res.Text)
		}
		switch {
		case out.Success && res.Data.Status == "async_launched":
			if res.Status != "async_launched" || res.TaskID == "" || res.Data.TaskID != res.TaskID || res.AgentID != res.TaskID ||
				res.Data.AgentID != res.TaskID || res.Data.OutputFile != res.OutputFile ||
				!strings.HasPrefix(res.Text, "Subagent ("+res.Data.SubagentType+", ") || res.Error != "" {
				t.Fatalf("a launch reads %#v", res)
			}
		case out.Success:
			if res.Status != "success" || res.Data.Status != "completed" || !strings.HasPrefix(res.Text, "Subagent ("+res.Data.SubagentType+", ") ||
				res.ShortResult != "Task completed by "+res.Data.SubagentType || res.Data.AgentID == "" || res.Error != "" {
				t.Fatalf("a success reads %#v", res)
			}
		default:
			if res.Status != "error" || res.Data.Status != "failed" || res.Error == "" || !strings.HasPrefix(res.Text, res.Error) ||
				res.ShortResult != "Task delegation failed" {
				t.Fatalf("a failure reads %#v", res)
			}
		}
	})
}

// FuzzTaskOutputAndStop feeds arbitrary arguments to TaskOutput and
// TaskStop, as a model might write them, with one task of the caller's
// completed and one running: a call is refused as invalid naming the
// field, or fails with "No task found with ID: X", or answers with the
// task's status and output — never a crash, and never a wait past the
// call's deadline, whatever timeout it asks for.
func FuzzTaskOutputAndStop(f *testing.F) {
	for _, s := range []string{
		`{"task_id":"agent-1"}`,
		`{"task_id":"agent-3","block":false}`,
		`{"task_id":"agent-3","block":true,"timeout":600000}`,
		`{"task_id":"agent-3","timeout":0}`,
		`{"task_id":"agent-9"}`,
		`{"task_id":"agent-1","timeout":600001}`,
		`{"task_id":"agent-1","timeout":-1}`,
		`{"task_id":"agent-1","timeout":1e9}`,
		`{"task_id":"agent-1","block":"yes"}`,
		`{"task_id":""}`,
		`{"task_id":"a\nb"}`,
		`{"task_id":"\u00e9t\u00e9"}`,
		`{"task_id":"agent-1","extra":1}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	w := newWorld(f, worldConfig{light: []scripted.Turn{
		scripted.When(scripted.LastUserContains("quick"), scripted.Repeat(scripted.Text("done"))),
		scripted.When(scripted.LastUserContains("slow"), scripted.Repeat(gate(make(chan struct{}), "never"))),
	}})
	quick := w.call(f, w.main, bgInput("reader", "Answer quickly", "quick"))
	if res, ok := quick.Value.(task.Result); !ok || res.Data.TaskID != "agent-1" {
		f.Fatalf("the quick task did not start: %s", quick.Text)
	}
	if bg, err := w.engine.Tasks().Get("agent-1"); err != nil {
		f.Fatal(err)
	} else if _, err := bg.Wait(within(f)); err != nil {
		f.Fatal(err)
	}
	// (agent-2 is the id of the quick task's notification.)
	if slow := w.call(f, w.main, bgInput("reader", "Answer slowly", "slow")); !slow.Success || slow.Value.(task.Result).Data.TaskID != "agent-3" {
		f.Fatalf("the slow task did not start as agent-3: %s", slow.Text)
	}
	set := w.tools(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{task.OutputToolName, task.StopToolName} {
			tool, _ := set.Lookup(name)
			c, cancel := context.WithTimeout(subagent.WithRun(ctx), 50*time.Millisecond)
			start := time.Now()
			out := tool.Call(c, invocationOn(w.s, set, w.main), data)
			cancel()
			// A watchdog, not a measure of speed: a call that ignored its
			// ctx would wait for the slow task, which never ends.
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("%s took %v", name, d)
			}
			var ve *tools.ValidationError
			switch {
			case out.Err != nil:
				if !errors.As(out.Err, &ve) || !strings.HasPrefix(out.Text, "Tool validation failed: "+name+": ") {
					t.Fatalf("%s failed with %T: %s", name, out.Err, out.Text)
				}
			case !out.Success:
				if !strings.HasPrefix(out.Text, "No task found with ID: ") {
					t.Fatalf("%s failed with %q", name, out.Text)
				}
			case name == task.OutputToolName:
				res, ok := out.Value.(task.OutputResult)
				if !ok || res.Status == "" || !strings.HasPrefix(out.Text, "Task "+res.TaskID+" ") {
					t.Fatalf("%s answered %q with %#v", name, out.Text, out.Value)
				}
			default:
				res, ok := out.Value.(task.StopResult)
				if !ok || res.Status == "" || !strings.HasPrefix(out.Text, "Task "+res.TaskID+" ") {
					t.Fatalf("%s answered %q with %#v", name, out.Text, out.Value)
				}
			}
		}
	})
}
