package planning_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

// planArgs builds the arguments of the planning tool op selects from the
// fuzz bytes a and b: texts from them, step ids and statuses picked by
// their bytes, or, for op 6, a and b as raw JSON.
func planArgs(op byte, a, b string) (string, string) {
	names := []string{"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan"}
	name := names[int(op)%len(names)]
	id := "S00" + string(rune('1'+len(a)%4))
	statuses := []string{"pending", "in_progress", "blocked", "done", "Done", ""}
	drafts := func() []map[string]string {
		var out []map[string]string
		for i, part := range strings.Split(b, ",") {
			if i == 4 {
				break
			}
			out = append(out, map[string]string{"title": part, "details": a})
		}
		return out
	}
	var v any
	switch int(op) % 7 {
	case 0:
		v = map[string]any{"objective": a, "initial_steps": drafts()}
	case 1:
		v = map[string]any{"steps": drafts()}
	case 2:
		v = map[string]any{"step_id": id, "title": b}
	case 3:
		v = map[string]any{"step_id": id, "status": statuses[len(b)%len(statuses)], "note": b}
	case 4, 5:
		v = map[string]any{}
	case 6:
		return names[len(a)%len(names)], a + b
	}
	args, _ := json.Marshal(v)
	return name, string(args)
}

// FuzzPlanningCalls runs sequences of planning tool calls with
// model-controlled arguments and checks that a failure is a clean failed
// result, that the reducers accept what the tools return, and that every
// plan the tools build passes Plan.Validate and survives a snapshot JSON
// round trip: the checks applied to restored plans agree with the tools.
func FuzzPlanningCalls(f *testing.F) {
	f.Add([]byte("\x00\x04Ship\x09Write,Tag\x03\x00\x04done\x03\x01\x04done"))
	f.Add([]byte("\x00\x02Go\x03a,b\x01\x00\x03c,d\x02\x01\x05title\x04\x00\x00\x03\x00\x01x"))
	f.Add([]byte("\x06\x0a{\"objecti\x0eve\":\"x\",\"q\":1}"))
	f.Add([]byte("\x00\x02\xc3\xa9\x01a\x00\x02Go\x03a,\xc3\xa9\x01\x00\x01 "))
	set, err := planning.Tools()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := session.New()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := set.Install(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 30 && len(data) >= 2; n++ {
			op, la := data[0], int(data[1])
			data = data[2:]
			a := string(data[:min(la, len(data))])
			data = data[min(la, len(data)):]
			b := ""
			if len(data) > 0 {
				lb := int(data[0])
				data = data[1:]
				b = string(data[:min(lb, len(data))])
				data = data[min(lb, len(data)):]
			}
			name, args := planArgs(op, a, b)
			tool, _ := set.Lookup(name)
			out := tool.Call(context.Background(), &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(args))
			if !out.Success {
				if len(out.Events) > 0 || out.Text == "" {
					t.Fatalf("%s %s: failed with events or without text: %q", name, args, out.Text)
				}
				// Text the plan refuses is invalid arguments, in their one format.
				textProblem := strings.Contains(out.Text, "must be ASCII") || strings.Contains(out.Text, "once trimmed")
				if textProblem && !strings.HasPrefix(out.Text, "Tool validation failed: "+name+": ") {
					t.Fatalf("%s %s: a text problem outside the validation format: %q", name, args, out.Text)
				}
				continue
			}
			if err := s.Dispatch(context.Background(), out.Events...); err != nil {
				t.Fatalf("%s %s: the reducers refused what the tool returned: %v", name, args, err)
			}
			if p, _ := planning.CurrentPlan(s); p.Validate() != nil {
				t.Fatalf("%s %s: the tools built a plan Validate refuses: %v", name, args, p.Validate())
			}
		}
		snapJSON, err := session.MarshalSnapshot(s.Snapshot(), nil)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := session.UnmarshalSnapshot(snapJSON, nil)
		if err != nil {
			t.Fatalf("a plan the tools built does not restore: %v", err)
		}
		before, _ := planning.CurrentPlan(s)
		after, _ := planning.PlanOf(snap)
		if before.String() != after.String() || len(before.Steps) != len(after.Steps) {
			t.Fatalf("the restored plan differs:\n%v\n%v", before, after)
		}
	})
}
