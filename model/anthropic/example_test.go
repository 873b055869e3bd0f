package anthropic_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

// A model on Anthropic's API — here the local server of anthropictest, so
// that the example runs offline — answers two turns of a conversation;
// the second reads the first's prefix from the prompt cache.
func ExampleNew() {
	srv := anthropictest.NewServer() // for real: leave BaseURL and HTTPClient unset, set APIKey
	defer srv.Close()
	cfg := anthropic.DefaultConfig()
	cfg.BaseURL, cfg.HTTPClient, cfg.Model = srv.URL, srv.Client(), anthropic.DefaultModel
	m, err := anthropic.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &model.Request{Messages: []model.Message{
		model.SystemMessage("You answer in one word. " + strings.Repeat("Be precise. ", 400)),
		model.UserMessage("Ready?"),
	}}
	for range 2 {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d input tokens, %d read from the cache, %d written\n",
			resp.Message.Content, resp.Usage.InputTokens, resp.Usage.CachedInputTokens, resp.Usage.CacheWriteTokens)
		req.Messages = append(req.Messages, resp.Message, model.UserMessage("Again?"))
	}
	// Output:
	// ok: 1219 input tokens, 0 read from the cache, 1219 written
	// ok: 1233 input tokens, 1219 read from the cache, 14 written
}

// With Config.NoStream, Stream asks for a whole answer and delivers it in
// pieces afterwards, for servers that mishandle streaming.
func ExampleModel_Stream() {
	srv := anthropictest.NewServer()
	defer srv.Close()
	srv.Answer = func([]byte) anthropictest.Turn { return anthropictest.Turn{Text: "Hello there."} }
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Model: anthropic.DefaultModel, NoStream: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Stream(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("Hi")}}, func(d model.Delta) error {
		fmt.Printf("%q\n", d.Text)
		return nil
	})
	fmt.Println(err)
	// Output:
	// "Hello there."
	// <nil>
}
