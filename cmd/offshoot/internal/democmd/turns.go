package democmd

import (
	"context"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent"
)

// inTurn makes the demo's reviewers take turns: once all have started,
// the first reviewer's model call and the tool calls it asks for, then
// the second's, then the first's again, until each has answered. A real
// model's turn takes seconds, so subagents running in parallel show their
// steps interleaved; the scripted model answers in microseconds, and
// without this the tree would often show one reviewer whole before the
// other started, and in another order on every run. The reviewers still
// run in parallel, each on its own goroutine; only their model calls wait
// for their turn.
type inTurn struct {
	next model.Model
	// parties tell the reviewers apart by their system prompt, in the
	// order they take turns.
	parties []string

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when the state below changes
	arrived map[int]bool  // the parties that called the model
	done    map[int]bool  // the parties that answered, or failed
	turn    int           // the party whose turn it is
	// off is set when a reviewer finished without answering (it failed
	// before its model was called): no one waits any longer.
	off bool
}

// takeTurns wraps m so that the reviewers of parties take turns. b is the
// planner's bus, where a reviewer's end passes the turn on.
func takeTurns(m model.Model, b *bus.Bus, parties ...string) (*inTurn, func(), error) {
	r := &inTurn{next: m, parties: parties, changed: make(chan struct{}), arrived: map[int]bool{}, done: map[int]bool{}}
	finished := 0
	unsubscribe, err := bus.Subscribe(b, "offshoot.demo.turns", func(context.Context, bus.Envelope, subagent.Finished) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		finished++
		switch {
		case finished > len(r.done):
			// More reviewers finished than answered: one failed before
			// it could take its turn.
			r.off = true
			r.update()
		case r.done[r.turn]:
			r.pass()
		}
		return nil
	})
	return r, unsubscribe, err
}

// Describe says what the model it passes calls to calls.
func (r *inTurn) Describe() model.Description { return model.Describe(r.next) }

// Generate answers req in its party's turn; the planner's calls do not
// wait.
func (r *inTurn) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	return r.Stream(ctx, req, nil)
}

// Stream streams the answer to req in its party's turn, as Generate.
func (r *inTurn) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	p := r.party(req)
	if p < 0 {
		return model.Stream(ctx, r.next, req, fn)
	}
	if err := r.wait(ctx, p); err != nil {
		return nil, err
	}
	resp, err := model.Stream(ctx, r.next, req, fn)
	if err != nil || len(resp.Message.ToolCalls) == 0 {
		// Its last turn: the turn passes when the reviewer has finished.
		r.mu.Lock()
		r.done[p] = true
		r.mu.Unlock()
	}
	return resp, err
}

// party is the reviewer req is from, or -1 for the planner.
func (r *inTurn) party(req *model.Request) int {
	if len(req.Messages) == 0 || req.Messages[0].Role != model.RoleSystem {
		return -1
	}
	for i, marker := range r.parties {
		if strings.Contains(req.Messages[0].Content, marker) {
			return i
		}
	}
	return -1
}

// wait returns once it is p's turn: when every reviewer has called the
// model and the turn came round to p. A call of p's in its own turn ends
// that turn: the tools of its previous answer have run.
func (r *inTurn) wait(ctx context.Context, p int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arrived[p] && r.turn == p {
		r.pass()
	}
	r.arrived[p] = true
	r.update()
	for !r.off && (len(r.arrived) < len(r.parties) || r.turn != p) {
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
			r.mu.Lock()
		case <-ctx.Done():
			r.mu.Lock()
			r.done[p] = true
			return ctx.Err()
		}
	}
	return nil
}

// pass gives the turn to the next party that has not answered yet, in
// order. r.mu is held.
func (r *inTurn) pass() {
	for i := 1; i <= len(r.parties); i++ {
		if next := (r.turn + i) % len(r.parties); !r.done[next] {
			r.turn = next
			break
		}
	}
	r.update()
}

// update wakes the calls waiting for their turn. r.mu is held.
func (r *inTurn) update() {
	close(r.changed)
	r.changed = make(chan struct{})
}
