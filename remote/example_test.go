package remote_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// A worker and a dispatching engine in one program, on an embedded
// JetStream server; in production they are separate processes built from
// the same code, and the server a cluster.
func Example() {
	dir, _ := os.MkdirTemp("", "offshoot-nats")
	defer os.RemoveAll(dir)
	srv, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	go srv.Start()
	defer srv.Shutdown()
	srv.ReadyForConnections(10 * time.Second)
	nc, _ := nats.Connect(srv.ClientURL())
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// What the program registers, the same on both sides.
	summarizer, _ := prompt.New("demo", "summarizer", prompt.Markdown[prompt.NoParams]("Summarizer", "Summarize what you are given."))
	reg := prompt.NewRegistry()
	_ = reg.Register(summarizer)
	setup := remote.Setup{Prompts: reg}

	// The worker.
	worker := setup
	worker.Model = func(name string) (model.Model, error) {
		return model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("A short summary."), FinishReason: model.FinishStop}, nil
		}), nil
	}
	served := make(chan error, 1)
	go func() { served <- remote.Serve(ctx, js, "docs", worker) }()

	// The dispatching side.
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "docs", Setup: setup})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	engine := subagent.New(subagent.Options{Executor: x})
	parent, _ := session.New()
	defer parent.Close()
	out, err := engine.Run(ctx, subagent.Spec{Name: "demo/summarizer", Parent: parent, Request: runner.Request{
		Prompt: summarizer, Model: model.Func(nil), ModelName: "main", UserMessage: "Summarize the plan."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Text)
	cancel()
	<-served
	// Output: A short summary.
}
