package offshoot_test

import (
	"context"
	"fmt"
	"log"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// Compact summarizes the main agent's conversation on the light model;
// the next query goes on from the summary, and every message stays.
func TestClientCompact(t *testing.T) {
	main := scripted.New(scripted.Repeat(scripted.Text("Noted.")))
	light := scripted.New(scripted.Text("Summary: the user listed four facts."))
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: main, model.Light: light}, nil)
	require.NoError(t, err)
	c, err := offshoot.NewClient(offshoot.Options{Router: r})
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()

	_, err = c.Compact(ctx, "")
	require.ErrorIs(t, err, runner.ErrNothingToCompact, "no conversation yet")
	for i := range 4 {
		for range c.Query(ctx, fmt.Sprintf("fact %d", i)) {
		}
	}
	done, err := c.Compact(ctx, "keep the facts")
	require.NoError(t, err)
	assert.Equal(t, "manual", done.Trigger)
	assert.Equal(t, "Summary: the user listed four facts.", done.Summary)
	require.Len(t, light.Calls(), 1, "the light model wrote it")
	assert.Contains(t, light.Calls()[0].Request.Messages[0].Content, "keep the facts")

	for range c.Query(ctx, "fact 4") {
	}
	calls := main.Calls()
	sent := calls[len(calls)-1].Request.Messages
	assert.Contains(t, sent[1].Content, "Summary: the user listed four facts.")
	assert.Len(t, sent, 2+4+1, "system, summary, the last two turns, the new question")
	assert.Equal(t, 1+5*2, len(runner.Conversation(c.Session().Snapshot(), done.Evaluation)), "every message stays")
	assert.Equal(t, 1, session.Len[runner.Compacted](c.Session()))
}

// Compact a long conversation by hand; the next query goes on from the
// summary, and a fork at Seq undoes it.
func ExampleClient_Compact() {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You write the summary"), scripted.Text("The user is planning a trip to Lisbon in May.")),
		scripted.Repeat(scripted.Text("Noted.")),
	)
	client, err := offshoot.NewClient(offshoot.Options{Model: m})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	for _, say := range []string{"I plan a trip.", "To Lisbon.", "In May."} {
		for range client.Query(ctx, say) {
		}
	}
	done, err := client.Compact(ctx, "keep the dates")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.Summary)
	fmt.Println(done.Trigger, "compaction; fork the session at seq", done.Seq, "to undo it")
	// Output:
	// The user is planning a trip to Lisbon in May.
	// manual compaction; fork the session at seq 19 to undo it
}
