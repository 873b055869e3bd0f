package runcmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// A server that accepts the connection and never answers ends the run
// with LLM_TIMEOUT, with an error that names the timeout and the flag.
func TestRunEndsWhenTheServerNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, tt := range []struct {
		name string
		vars map[string]string
		r    *run
	}{
		{"LLM_TIMEOUT", map[string]string{"LLM_TIMEOUT": "1s"}, &run{task: "Hi."}},
		{"--timeout", nil, &run{task: "Hi.", flags: cli.AgentFlags{Models: cli.ModelFlags{Timeout: 1e9}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.vars["LLM_MODEL_ID"], f.vars["LLM_BASE_URL"] = "gpt-test", srv.URL+"/v1"
			for k, v := range tt.vars {
				f.vars[k] = v
			}
			err := f.run(t, context.Background(), tt.r)
			require.Error(t, err)
			assert.Equal(t, cli.ExitFailed, code(err))
			assert.Contains(t, err.Error(), "no complete answer within 1s, the timeout of a whole call")
			assert.Contains(t, err.Error(), "--timeout")
		})
	}
}

// LLM_STREAM=false, --no-stream and "stream": false ask for whole answers:
// no request says "stream": true.
func TestRunWithStreamingOff(t *testing.T) {
	for _, tt := range []struct {
		name   string
		vars   map[string]string
		config string
		flags  cli.AgentFlags
	}{
		{name: "LLM_STREAM=false", vars: map[string]string{"LLM_STREAM": "false"}},
		{name: "--no-stream", flags: cli.AgentFlags{Models: cli.ModelFlags{NoStream: true}}},
		{name: "stream false in the configuration", config: `{"models": {"main": {"stream": false}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeOpenAI(t)
			files := map[string]string{"main.go": "package main\n", "main_test.go": "package main\n"}
			if tt.config != "" {
				files[".offshoot/config.json"] = tt.config
			}
			f := newFixture(t, files)
			f.vars["LLM_MODEL_ID"], f.vars["LLM_API_KEY"], f.vars["LLM_BASE_URL"] = "gpt-test", "sk-test", srv.URL+"/v1"
			for k, v := range tt.vars {
				f.vars[k] = v
			}
			err := f.run(t, context.Background(), &run{task: "What is in this project?", flags: tt.flags})
			require.NoError(t, err, f.stderr.String())
			assert.Contains(t, f.stdout.String(), "  ✎ There is one program, main.go, and its tests are in main_test.go.\n")
			reqs := srv.requests()
			require.Len(t, reqs, 4)
			for _, r := range reqs {
				assert.False(t, r.Stream)
			}
		})
	}
}

// A project's configuration that sends the model to its own server gets
// no key from the environment or the user's file; the run warns and says
// which setting sends it there.
func TestAProjectsServerGetsNoKey(t *testing.T) {
	for _, tt := range []struct {
		name string
		vars map[string]string
		user string
	}{
		{name: "the key in LLM_API_KEY", vars: map[string]string{"LLM_API_KEY": "sk-canary", "LLM_MODEL_ID": "gpt-test"}},
		{name: "the key in the user's own file", user: `{"models": {"main": {"api_key": "sk-canary"}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeOpenAI(t)
			f := newFixture(t, map[string]string{
				"main.go":               "package main\n",
				".offshoot/config.json": `{"models": {"main": {"model_id": "gpt-test", "base_url": "` + srv.URL + `/v1"}}}`,
			})
			for k, v := range tt.vars {
				f.vars[k] = v
			}
			if tt.user != "" {
				path := filepath.Join(f.env.HomeDir, ".offshoot", "config.json")
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
				require.NoError(t, os.WriteFile(path, []byte(tt.user), 0o600))
			}
			_ = f.run(t, context.Background(), &run{task: "What is in this project?"})
			reqs := srv.requests()
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				assert.Empty(t, r.auth, "no key sent to the project's server")
			}
			assert.Contains(t, f.stderr.String(), "no API key is sent to "+srv.URL+"/v1")
			assert.Contains(t, f.stderr.String(), "LLM_BASE_URL="+srv.URL+"/v1")
			assert.NotContains(t, f.stdout.String()+f.stderr.String(), "sk-canary")
		})
	}
}
