package offshoot

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/runner"
)

// Compact compacts the main agent's conversation now: a summary turn on
// the light model (Options.Context.SummaryModel) replaces all but its
// last turns, keeping what guidance asks for in particular, and the next
// query goes on from the summary. Every original message stays in the
// session: fork the session at the Compacted record's Seq (store.Fork,
// "offshoot sessions fork --at SEQ") to have the conversation as it was.
// It waits for no query: one that runs makes it ErrBusy. With no
// conversation, or none with turns older than those a compaction keeps,
// it returns runner.ErrNothingToCompact.
func (c *Client) Compact(ctx context.Context, guidance string) (*runner.Compacted, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if !c.turn.TryLock() {
		return nil, ErrBusy
	}
	defer c.turn.Unlock()
	eval := c.lastEvaluation()
	if eval == "" {
		return nil, fmt.Errorf("offshoot: the main agent has no conversation yet; ask it something first: %w", runner.ErrNothingToCompact)
	}
	return runner.Compact(ctx, runner.Request{Session: c.session, Continue: eval, Model: c.model, ModelName: c.modelName,
		Context: c.context, Logger: c.logger}, guidance)
}
