package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// FuzzParseServer checks that any entry either parses into a usable
// configuration or fails with a *ConfigError naming the server, and never
// panics.
func FuzzParseServer(f *testing.F) {
	for _, seed := range []string{
		`{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"],"env":{"K":"v"}}`,
		`{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer ${TOKEN:-x}"}}`,
		`{"type":"sse","url":"http://localhost:1/sse"}`, `{"url":"https://h"}`, `{"command":"${HOME}/bin/s","cwd":"${PWD:-.}"}`,
		`{}`, `[]`, `null`, `{"command":1}`, `{"args":"x"}`, `{"type":"ws"}`, `{"command":"x","url":"y"}`,
		`{"command":"${UNSET_OFFSHOOT_FUZZ}"}`, `{"command":"a","env":{"A":"${"}}`, `{"url":"https://h","headers":{"A\nB":"c"}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		cfg, err := mcp.ParseServer("fuzz", []byte(data))
		if err != nil {
			var ce *mcp.ConfigError
			if !errors.As(err, &ce) || ce.Server != "fuzz" || !strings.HasPrefix(err.Error(), `mcp: server "fuzz": `) {
				t.Fatalf("error %q is not a *ConfigError for the server", err)
			}
			return
		}
		switch cfg.Type {
		case "stdio":
			if strings.TrimSpace(cfg.Command) == "" {
				t.Fatalf("a stdio server without a command: %+v", cfg)
			}
		case "http", "sse":
			if !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") {
				t.Fatalf("an HTTP server without an http URL: %+v", cfg)
			}
		default:
			t.Fatalf("type %q", cfg.Type)
		}
		// What it writes, it reads back the same.
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "${") {
			return // a literal "${" left in a value would be expanded again
		}
		back, err := mcp.ParseServer("fuzz", b)
		if err != nil {
			t.Fatalf("%s does not parse back: %v", b, err)
		}
		if mb, _ := json.Marshal(back); string(mb) != string(b) {
			t.Fatalf("round trip changed %s into %s", b, mb)
		}
	})
}

// mirrorServer has a tool that sends back the arguments it got, and one
// whose schema the server checks.
func mirrorServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "mirror"}, nil)
	srv.AddTool(&sdk.Tool{Name: "mirror", Description: "Send the arguments back.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	type args struct {
		N    int      `json:"n"`
		Tags []string `json:"tags,omitempty"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "typed", Description: "Count."},
		func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("n", a.N%100)}}}, nil, nil
		})
	return srv
}

// FuzzToolCall sends arbitrary model arguments to a real server: a call
// never panics, always answers within its timeout, and says something.
func FuzzToolCall(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"n":3}`, `{"n":"3"}`, `{"n":3,"tags":["a"]}`, `{"extra":true}`, ``, `[]`, `null`, `"x"`,
		`{"n":1e400}`, `{"a":{"b":{"c":[1,2,{"d":null}]}}}`, `{"n":3} {}`, `{"\u0000":"\ud800"}`, `{` + strings.Repeat(`"k":`, 3) + `1}`,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"m": inMemoryOf(f, mirrorServer())}, mcp.WithCallTimeout(5*time.Second))
	if err != nil {
		f.Fatal(err)
	}
	defer m.Close()
	set, err := m.Tools(ctx, "m")
	if err != nil || set.Len() != 2 {
		f.Fatalf("tools: %v %v", set.Names(), err)
	}
	f.Fuzz(func(t *testing.T, args string, mirror bool) {
		tool := set.At(1)
		if mirror {
			tool = set.At(0)
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		done := make(chan tools.Outcome, 1)
		go func() { done <- tool.Call(cctx, nil, []byte(args)) }()
		var out tools.Outcome
		select {
		case out = <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("the call with %q did not answer", args)
		}
		if out.Text == "" {
			t.Fatalf("no text for %q", args)
		}
		var ve *tools.ValidationError
		isObject := json.Valid([]byte(args)) && strings.HasPrefix(strings.TrimSpace(args), "{") || strings.TrimSpace(args) == ""
		if isObject == errors.As(out.Err, &ve) {
			t.Fatalf("arguments %q: validation error %v", args, out.Err)
		}
	})
}
