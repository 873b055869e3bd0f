package task_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model/scripted"
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
		engine: []subagent.Option{subagent.WithTimeout(5 * time.Second)},
		main:   []scripted.Turn{scripted.Repeat(scripted.Text("done on main"))},
		light:  []scripted.Turn{scripted.Repeat(scripted.Text("done on light"))},
	})
	caller := scripted.New(scripted.Repeat(scripted.Text("done on the caller's model")))
	f.Fuzz(func(t *testing.T, data []byte) {
		rev := w.s.Revision()
		out := w.call(t, caller, string(data))
		if w.s.Revision() != rev {
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
