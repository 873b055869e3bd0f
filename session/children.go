package session

import "sync/atomic"

// childRef is a parent's record of one child: its id and, once closed, the
// close epoch. The parent holds no pointer to the child itself, so a closed
// child can be garbage-collected.
type childRef struct {
	id       string
	closedAt atomic.Uint64 // 0 while live
}

// children is a parent's list of children in creation order. Adding appends,
// closing marks the entry with a new epoch (O(1)), and the list is compacted
// once most entries are closed, so forking and closing stay O(1) amortized
// however many children a session has. A childView freezes the list at one
// epoch in O(1), which is what a Snapshot stores.
type children struct {
	refs  []*childRef
	epoch uint64
	dead  int
	// published is the current view, for readers that take no lock.
	published atomic.Pointer[childView]
}

type childView struct {
	refs  []*childRef
	epoch uint64
}

func (c *children) add(id string) *childRef {
	r := &childRef{id: id}
	c.refs = append(c.refs, r)
	c.publish()
	return r
}

func (c *children) remove(r *childRef) {
	if r == nil || r.closedAt.Load() != 0 {
		return
	}
	c.epoch++
	r.closedAt.Store(c.epoch)
	c.dead++
	if c.dead > 32 && c.dead*2 > len(c.refs) {
		live := make([]*childRef, 0, len(c.refs)-c.dead)
		for _, x := range c.refs {
			if x.closedAt.Load() == 0 {
				live = append(live, x)
			}
		}
		c.refs, c.dead = live, 0
	}
	c.publish()
}

func (c *children) publish() {
	c.published.Store(&childView{refs: c.refs[:len(c.refs):len(c.refs)], epoch: c.epoch})
}

// view returns the list as it is now, without locking; later changes do
// not show in it. It shares the backing array: appends write past the
// view's length and compaction makes a new array, so the view's elements
// never change.
func (c *children) view() childView {
	if v := c.published.Load(); v != nil {
		return *v
	}
	return childView{}
}

func (v childView) ids() []string {
	out := make([]string, 0, len(v.refs))
	for _, r := range v.refs {
		if at := r.closedAt.Load(); at == 0 || at > v.epoch {
			out = append(out, r.id)
		}
	}
	return out
}
