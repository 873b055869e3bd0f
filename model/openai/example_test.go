package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

// This example asks for structured output. The schema's optional field
// "country" is sent to the server as required and nullable (strict mode
// demands it); the null the model fills in is removed from the answer.
func ExampleNew() {
	// A stand-in for an OpenAI-compatible server.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ResponseFormat struct {
				JSONSchema struct {
					Name   string          `json:"name"`
					Strict bool            `json:"strict"`
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		fmt.Printf("sent %s (strict %v): %s\n", body.ResponseFormat.JSONSchema.Name,
			body.ResponseFormat.JSONSchema.Strict, body.ResponseFormat.JSONSchema.Schema)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini",
			"choices": [{"index": 0, "finish_reason": "stop",
				"message": {"role": "assistant", "content": "{\"city\":\"Paris\",\"country\":null}"}}],
			"usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}}`)
	}))
	defer srv.Close()

	m, err := openai.New(openai.Config{
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-example",
		Model:      "gpt-4.1-mini",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("Which city is the Eiffel Tower in?")},
		Output: &model.OutputSpec{
			Name:   "place",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city"]}`),
			Strict: true,
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answer:", resp.Message.Content)
	fmt.Println("finish:", resp.FinishReason, "tokens:", resp.Usage.TotalTokens)
	// Output:
	// sent place (strict true): {"type":"object","properties":{"city":{"type":"string"},"country":{"type":["string","null"]}},"required":["city","country"],"additionalProperties":false}
	// answer: {"city":"Paris"}
	// finish: stop tokens: 39
}

// Streaming: the text arrives in pieces as the server generates it, then
// Stream returns the whole answer with the usage the server reported last.
func ExampleModel_Stream() {
	// A stand-in for an OpenAI-compatible server that streams.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{"It is", " sunny", " in Paris."} {
			fmt.Fprintf(w, "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", piece)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	cfg := openai.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.HTTPClient = srv.URL+"/v1", "gpt-4.1-mini", srv.Client()
	m, err := openai.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Stream(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("Weather in Paris?")},
	}, func(d model.Delta) error {
		fmt.Printf("%q\n", d.Text)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answer:", resp.Message.Content)
	fmt.Println("finish:", resp.FinishReason, "tokens:", resp.Usage.TotalTokens)
	// Output:
	// "It is"
	// " sunny"
	// " in Paris."
	// answer: It is sunny in Paris.
	// finish: stop tokens: 17
}
