package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

// mockServerPackage is the third-party OpenAI-compatible server the
// end-to-end test runs: openai-mock-api from the npm registry, installed
// by .ci/run into .cache/e2e (or the directory E2E_NODE_MODULES names).
const mockServerPackage = "openai-mock-api"

// e2eConfig is the mock server's script: a greeting, and a tool round in
// which the first request gets a tool call and the one carrying the tool
// result gets the answer. (The server matches a request against the
// start of each flow and answers with the flow's last assistant message;
// on a tie the first flow wins.)
const e2eConfig = `{
  "apiKey": "sk-e2e",
  "responses": [
    {"id": "greeting", "messages": [
      {"role": "user", "content": "Hello"},
      {"role": "assistant", "content": "Hi there, I am a mock model answering you."}]},
    {"id": "weather-call", "messages": [
      {"role": "system", "matcher": "any"},
      {"role": "user", "content": "weather", "matcher": "contains"},
      {"role": "assistant", "tool_calls": [{"id": "call_abc123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}]},
    {"id": "weather-answer", "messages": [
      {"role": "system", "matcher": "any"},
      {"role": "user", "content": "weather", "matcher": "contains"},
      {"role": "assistant", "tool_calls": [{"id": "call_abc123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_abc123", "matcher": "any"},
      {"role": "assistant", "content": "It is sunny in Paris."}]}
  ]
}`

// outputWriter collects a process's output and reports the port the
// launcher prints.
type outputWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	port chan string
	sent bool
}

var listening = regexp.MustCompile(`offshoot-e2e-listening (\d+)`)

func (w *outputWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := listening.FindSubmatch(w.buf.Bytes()); m != nil && !w.sent {
		w.sent = true
		w.port <- string(m[1])
	}
	return len(p), nil
}

func (w *outputWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startMockServer starts the third-party server on loopback and returns its
// base URL; it is killed when the test ends. The test is skipped, saying
// why, when node or the package is missing.
func startMockServer(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping the end-to-end test: node is not installed (it runs the npm package " + mockServerPackage + "; .ci/run installs it when npm is present)")
	}
	modules := os.Getenv("E2E_NODE_MODULES")
	if modules == "" {
		modules, err = filepath.Abs(filepath.Join("..", "..", ".cache", "e2e", "node_modules"))
		require.NoError(t, err)
	}
	if _, err := os.Stat(filepath.Join(modules, mockServerPackage, "package.json")); err != nil {
		t.Skipf("skipping the end-to-end test: %s is not installed in %s; run .ci/run, or: npm install --prefix .cache/e2e %s@0.4.0",
			mockServerPackage, modules, mockServerPackage)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(e2eConfig), 0o600))

	cmd := exec.Command(node, filepath.Join("testdata", "e2e", "server.js"), cfg)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out := &outputWriter{port: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe() // the server exits when this closes
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		<-exited
	})
	select {
	case port := <-out.port:
		return "http://127.0.0.1:" + port
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("the mock server exited (%v); its output:\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the mock server did not start within 30s; its output:\n%s", out.String())
	}
	return ""
}

func TestEndToEndAgainstAnOpenAICompatibleServer(t *testing.T) {
	base := startMockServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // watchdog
	defer cancel()
	m, err := openai.New(openai.Config{BaseURL: base + "/v1", APIKey: "sk-e2e", Model: "gpt-4"})
	require.NoError(t, err)
	weatherTool := []model.ToolSpec{{Name: "get_weather", Description: "Current weather for a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}

	for _, streamed := range []bool{false, true} {
		name := map[bool]string{false: "generate", true: "stream"}[streamed]
		call := func(t *testing.T, req *model.Request) (*model.Response, []model.Delta) {
			t.Helper()
			var deltas []model.Delta
			var resp *model.Response
			var err error
			if streamed {
				resp, err = m.Stream(ctx, req, func(d model.Delta) error {
					deltas = append(deltas, d)
					return nil
				})
			} else {
				resp, err = m.Generate(ctx, req)
			}
			require.NoError(t, err)
			return resp, deltas
		}

		t.Run(name+"/text", func(t *testing.T) {
			resp, deltas := call(t, &model.Request{Messages: []model.Message{model.UserMessage("Hello")}})
			assert.Equal(t, "Hi there, I am a mock model answering you.", resp.Message.Content)
			assert.Equal(t, model.FinishStop, resp.FinishReason)
			assert.Equal(t, "gpt-4", resp.Model)
			if streamed {
				require.Greater(t, len(deltas), 3, "the answer arrives in pieces")
				var text strings.Builder
				for _, d := range deltas {
					text.WriteString(d.Text)
				}
				assert.Equal(t, resp.Message.Content, text.String())
			} else {
				assert.Positive(t, resp.Usage.InputTokens)
				assert.Positive(t, resp.Usage.OutputTokens)
			}
		})

		t.Run(name+"/tool round", func(t *testing.T) {
			req := &model.Request{
				Messages: []model.Message{model.SystemMessage("You report the weather."), model.UserMessage("What is the weather in Paris?")},
				Tools:    weatherTool, ToolChoice: "auto",
			}
			resp, deltas := call(t, req)
			want := []model.ToolCall{{ID: "call_abc123", Name: "get_weather", Arguments: `{"city":"Paris"}`}}
			assert.Equal(t, want, resp.Message.ToolCalls)
			assert.Equal(t, model.FinishToolCalls, resp.FinishReason)
			if streamed {
				assert.Equal(t, []model.Delta{{ToolCall: &model.ToolCallDelta{ID: "call_abc123", Name: "get_weather", Arguments: `{"city":"Paris"}`}}}, deltas)
			}
			req.Messages = append(req.Messages, resp.Message, model.ToolMessage("call_abc123", "get_weather", `{"sky":"sunny"}`))
			resp, _ = call(t, req)
			assert.Equal(t, "It is sunny in Paris.", resp.Message.Content)
			assert.Empty(t, resp.Message.ToolCalls)
		})
	}

	t.Run("wrong key", func(t *testing.T) {
		bad, err := openai.New(openai.Config{BaseURL: base + "/v1", APIKey: "sk-wrong", Model: "gpt-4", MaxRetries: 2})
		require.NoError(t, err)
		_, err = bad.Stream(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hello")}}, nil)
		require.ErrorIs(t, err, model.ErrAuth)
	})

	t.Run("nothing scripted", func(t *testing.T) {
		_, err := m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Something else")}})
		var apiErr *model.APIError
		require.True(t, errors.As(err, &apiErr), "%v", err)
		assert.Equal(t, 400, apiErr.StatusCode)
		assert.Contains(t, apiErr.Message, "No matching response")
	})
}
