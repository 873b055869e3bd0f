package chatcmd

import (
	"context"
	"errors"
	"strconv"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// clearAfterTurns is how many model turns a chat's tool results are sent
// in full; older ones are cleared once the context fills up.
const clearAfterTurns = 5

// compact compacts the conversation on demand (/compact [guidance]).
func (c *chat) compact(ctx context.Context, guidance string) {
	done, err := c.client.Compact(ctx, guidance)
	switch {
	case errors.Is(err, runner.ErrNothingToCompact):
		c.say("nothing to compact yet: the conversation holds no more than its last turns, which a compaction keeps")
	case err != nil:
		what, todo := cli.Explain(err)
		c.fail("the compaction failed: %s; %s", what, todo)
	default:
		c.sayCompacted(*done)
	}
}

// sayCompactions tells of the compactions recorded in the session after
// the first from.
func (c *chat) sayCompactions(from int) {
	all := session.Get[runner.Compacted](c.client.Session())
	for i := from; i < all.Len(); i++ {
		c.sayCompacted(all.At(i))
	}
}

// sayCompacted says what a compaction did and how to undo it.
func (c *chat) sayCompacted(done runner.Compacted) {
	undo := "the session is not stored (--no-store), so it cannot be forked back to before it"
	if c.env.Stored != nil {
		undo = "to undo it, carry on from before it with: offshoot sessions fork " + cli.PrintableID(c.client.Session().ID()) +
			" --at " + strconv.FormatUint(done.Seq, 10) + ", then offshoot chat --resume NEWID"
	}
	c.say("compacted the conversation (%s): %d → %d tokens of context; every message stays in the session, and %s",
		done.Trigger, done.TokensBefore, done.TokensAfter, undo)
}
