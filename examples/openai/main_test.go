package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv("OPENAI_EXAMPLE_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// env returns a getenv that knows only vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// runUnderWatchdog runs the example against getenv, failing the test if it
// takes longer than a minute.
func runUnderWatchdog(t *testing.T, getenv func(string) string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, getenv)
	require.NoError(t, ctx.Err(), "the example did not finish in a minute")
	return out.String(), err
}

func TestAgainstAServer(t *testing.T) {
	srv := newFakeServer(t)
	out, err := runUnderWatchdog(t, env(map[string]string{
		"LLM_API_KEY": "sk-test", "LLM_BASE_URL": srv.URL + "/v1", "LLM_MODEL_ID": "gpt-test",
	}))
	require.NoError(t, err, out)

	for _, want := range []string{
		"I will plan one step per file.\n", // streamed in pieces, printed as they came
		"  [planner] ✓ planning_setup_plan {",
		"  ┌ subagent ",
		"] ✓ read_file {\"file_path\":\"billing/tax.py\"}",
		"] ✓ write_file {\"content\":\"# billing/invoice.py",
		"  [planner] ✓ dispatch_subagent {",
		"Both files need a fix.",
		"  S001 Review billing/invoice.py [done]\n",
		"  S002 Review billing/tax.py [done]\n",
		"  notes/invoice.md (",
		"  notes/tax.md (",
		"Usage: planner ",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 2, strings.Count(out, "finished in"), out)

	reqs := srv.requests()
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		assert.Equal(t, "Bearer sk-test", r.auth)
		assert.Equal(t, "gpt-test", r.Model)
		assert.True(t, r.Stream, "the example streams")
	}
}

// TestAModelThatDoesNotFollowTheStory: a model that answers without
// calling the planning tools makes no plan, and one that plans but
// dispatches no reviewer gets no notes: the example says so instead of
// printing empty headings.
func TestAModelThatDoesNotFollowTheStory(t *testing.T) {
	for _, tt := range []struct {
		name    string
		planned bool
		want    []string
		notWant []string
	}{
		{
			name: "no plan",
			want: []string{"\nNo plan was made: the model answered without setting up a plan (planning_setup_plan), so no reviewer was dispatched. " +
				"A model that calls tools reliably follows the story; try another with LLM_MODEL_ID.\n"},
			notWant: []string{"Plan:", "Notes the reviewers wrote:", "no notes"},
		},
		{
			name:    "no notes",
			planned: true,
			want:    []string{"\nPlan:\n  S001 Review billing/invoice.py [", "The reviewers wrote no notes (notes/…): the model did not carry the steps out.\n"},
			notWant: []string{"No plan was made", "Notes the reviewers wrote:"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req request
				_ = json.NewDecoder(r.Body).Decode(&req)
				if tt.planned && len(req.Messages) <= 2 {
					stream(w, "", []call{{"planning_setup_plan", map[string]any{
						"objective": "Review the billing module", "initial_steps": []map[string]string{{"title": "Review billing/invoice.py"}},
					}}})
					return
				}
				stream(w, "The billing module looks fine to me.", nil)
			}))
			defer srv.Close()
			out, err := runUnderWatchdog(t, env(map[string]string{"LLM_API_KEY": "sk-test", "LLM_BASE_URL": srv.URL + "/v1", "LLM_MODEL_ID": "gpt-test"}))
			require.NoError(t, err, out)
			assert.Contains(t, out, "The billing module looks fine to me.")
			for _, want := range tt.want {
				assert.Contains(t, out, want)
			}
			for _, not := range tt.notWant {
				assert.NotContains(t, out, not)
			}
			assert.Contains(t, out, "Usage: planner ")
		})
	}
}

func TestServerRefusesTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}`)
	}))
	defer srv.Close()
	_, err := runUnderWatchdog(t, env(map[string]string{"LLM_API_KEY": "sk-wrong", "LLM_BASE_URL": srv.URL + "/v1", "LLM_MODEL_ID": "gpt-test"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "check the API key (LLM_API_KEY)")
}

func TestSkipsWithoutAModel(t *testing.T) {
	out, err := runUnderWatchdog(t, env(nil))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "skipping: no model is configured."), out)
	assert.Contains(t, out, "LLM_MODEL_ID")
	assert.Contains(t, out, "LLM_API_KEY")
	assert.Contains(t, out, "LLM_BASE_URL")
}

// TestMainSkipsWithExitZero runs the program as go run does, with no model
// configured.
func TestMainSkipsWithExitZero(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LLM_") && !strings.HasPrefix(kv, "LIGHT_LLM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "OPENAI_EXAMPLE_RUN_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "skipping: ")
	assert.Empty(t, stderr.String())
}

// fakeServer is an OpenAI-compatible server that plays the planner and the
// reviewers, streaming its answers: it tells them apart by their system
// message and counts the answers a conversation already holds.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []request
}

type request struct {
	auth     string
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func newFakeServer(t *testing.T) *fakeServer {
	s := &fakeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.seen...)
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	req.auth = r.Header.Get("Authorization")
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()

	system, answered := req.Messages[0].Content, 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			answered++
		}
	}
	var text string
	var calls []call
	switch {
	case strings.Contains(system, "step S001 of the plan"):
		text, calls = review(answered, "billing/invoice.py", "notes/invoice.md", "invoice.py sums floats; use Decimal.")
	case strings.Contains(system, "step S002 of the plan"):
		text, calls = review(answered, "billing/tax.py", "notes/tax.md", "tax.py lets unknown regions pay no tax; raise instead.")
	case answered == 0:
		text, calls = "I will plan one step per file.", []call{{"planning_setup_plan", map[string]any{
			"objective": "Review the billing module",
			"initial_steps": []map[string]string{
				{"title": "Review billing/invoice.py"}, {"title": "Review billing/tax.py"},
			},
		}}}
	case answered == 1:
		text, calls = "Dispatching the reviewers.", []call{dispatch("S001", "notes/invoice.md"), dispatch("S002", "notes/tax.md")}
	default:
		text = "Both files need a fix."
	}
	stream(w, text, calls)
}

type call struct {
	name string
	args any
}

// review is what a reviewer answers after answered answers: read, write,
// report.
func review(answered int, file, notes, finding string) (string, []call) {
	switch answered {
	case 0:
		return "", []call{{"read_file", map[string]string{"file_path": file}}}
	case 1:
		return "", []call{{"write_file", map[string]string{"file_path": notes, "content": "# " + file + "\n\n" + finding + "\n"}}}
	default:
		return finding, nil
	}
}

func dispatch(step, notes string) call {
	return call{"dispatch_subagent", map[string]any{
		"mode": "plan_step", "prompt_ns": "agents", "prompt_key": "reviewer", "plan_step_id": step,
		"instructions": "Review the file of your step and write your findings to " + notes + ".", "expected_artifacts": []string{notes},
	}}
}

// stream writes an answer as server-sent events, as OpenAI streams: the
// text word by word, each tool call with its arguments in two pieces, the
// finish reason, the usage, [DONE].
func stream(w http.ResponseWriter, text string, calls []call) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test",
			"choices": []map[string]any{{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	for i, word := range strings.SplitAfter(text, " ") {
		if word != "" {
			d := map[string]any{"content": word}
			if i == 0 {
				d["role"] = "assistant"
			}
			send(delta(d, nil))
		}
	}
	for i, c := range calls {
		args, _ := json.Marshal(c.args)
		half := len(args) / 2
		send(delta(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]string{"name": c.name, "arguments": string(args[:half])}}}}, nil))
		send(delta(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]string{"arguments": string(args[half:])}}}}, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	send(delta(map[string]any{}, finish))
	send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
