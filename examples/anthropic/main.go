// Command anthropic runs a short tool loop on Claude through Anthropic's
// own API (model/anthropic) and prints what each turn cost: the input
// tokens read from the prompt cache and written to it. The adapter marks
// the cache breakpoints by rule, so every turn after the first reads the
// turns before it at a tenth of the price.
//
//	ANTHROPIC_API_KEY=sk-ant-… go run ./examples/anthropic
//	go run ./examples/anthropic   # offline, against anthropictest's server
//
// Without ANTHROPIC_API_KEY it runs offline, against the local server of
// model/anthropic/anthropictest, which answers from a script and bills
// like Anthropic; it needs neither the network nor a key.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

// turns bounds the model calls of one run: a real model is paid for.
const turns = 6

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "anthropic:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, getenv func(string) string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cfg := anthropic.DefaultConfig()
	cfg.Model = anthropic.DefaultModel
	if id := getenv("LLM_MODEL_ID"); id != "" {
		cfg.Model = id
	}
	cfg.APIKey = getenv("ANTHROPIC_API_KEY")
	if cfg.APIKey == "" {
		srv := anthropictest.NewServer()
		defer srv.Close()
		srv.Answer = script
		cfg.BaseURL, cfg.HTTPClient = srv.URL, srv.Client()
		fmt.Fprintln(w, "offline: no ANTHROPIC_API_KEY, so the local server of anthropictest answers and bills")
	}
	m, err := anthropic.New(cfg)
	if err != nil {
		return err
	}
	req := &model.Request{
		Messages: []model.Message{
			model.SystemMessage("You keep a ledger. " + strings.Repeat("Round half to even, and say which rule you applied. ", 120)),
			model.UserMessage("Add up the ledger, one part at a time, with the part tool, parts 1 to 3."),
		},
		Tools: []model.ToolSpec{{Name: "part", Description: "Returns the entries of one part of the ledger.",
			Parameters: []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}},
		MaxTokens: 1024,
	}
	var total model.Usage
	for turn := 1; turn <= turns; turn++ {
		resp, err := model.Stream(ctx, m, req, nil)
		if err != nil {
			return err
		}
		total = total.Add(resp.Usage)
		u := resp.Usage
		fmt.Fprintf(w, "turn %d: %d input tokens (%d cached, %d written to the cache), %d output\n", turn, u.InputTokens, u.CachedInputTokens, u.CacheWriteTokens, u.OutputTokens)
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			fmt.Fprintf(w, "answer: %s\n", resp.Message.Content)
			break
		}
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, model.ToolMessage(c.ID, c.Name, "12.345, 0.005, 7.125"))
		}
	}
	fmt.Fprintf(w, "in all: %d input tokens, %d read from the cache\n", total.InputTokens, total.CachedInputTokens)
	return nil
}

// script is the offline server's model: one call of the part tool per
// part, then the sum.
func script(body []byte) anthropictest.Turn {
	n := strings.Count(string(body), `"tool_result"`)
	if n < 3 {
		return anthropictest.Turn{Text: fmt.Sprintf("Part %d.", n+1), ToolCalls: []model.ToolCall{{ID: fmt.Sprintf("toolu_%d", n+1), Name: "part", Arguments: fmt.Sprintf(`{"n":%d}`, n+1)}}}
	}
	return anthropictest.Turn{Text: "The three parts add up to 58.42 (round half to even)."}
}
