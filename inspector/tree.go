package inspector

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/offshoot-dev/offshoot/store"
)

// maxTreeSessions bounds the sessions one tree shows, and maxAncestors
// how far up it looks for the root: a store may hold any shape.
const (
	maxTreeSessions = 2000
	maxAncestors    = 1000
)

// node is a session in the tree of subagents and forks.
type node struct {
	row
	Took     time.Duration
	Current  bool
	Children []*node
}

// treeView is what the tree page shows.
type treeView struct {
	Root    *node
	ID      string
	Partial string
}

// treePage shows the tree the session belongs to: from its root, every
// session forked from another (subagents, forks), with its agent, status,
// turns, tokens, time and where it ran.
func (s *Server) treePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	root, err := s.rootOf(ctx, h)
	if err != nil {
		s.fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	v := treeView{ID: h.ID}
	now := time.Now()
	mk := func(h store.Header) *node {
		return &node{row: summarize(h, now), Took: h.Updated.Sub(h.Created), Current: h.ID == v.ID}
	}
	v.Root = mk(root)
	queue, count := []*node{v.Root}, 1
	seen := map[string]bool{root.ID: true}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		kids, err := s.st.List(ctx, store.Query{Parent: n.ID, Limit: maxTreeSessions})
		if err != nil {
			v.Partial = "the tree could not be read whole: " + err.Error()
			break
		}
		slices.SortFunc(kids, func(a, b store.Header) int { return a.Created.Compare(b.Created) })
		for _, k := range kids {
			if seen[k.ID] {
				continue
			}
			if count == maxTreeSessions {
				v.Partial = fmt.Sprintf("only the first %d sessions of the tree are shown", maxTreeSessions)
				queue = nil
				break
			}
			seen[k.ID] = true
			c := mk(k)
			n.Children = append(n.Children, c)
			queue = append(queue, c)
			count++
		}
	}
	s.render(w, "tree.html", v)
}

// rootOf returns the session h was forked from, and that one's, up to
// one forked from none.
func (s *Server) rootOf(ctx context.Context, h store.Header) (store.Header, error) {
	seen := map[string]bool{h.ID: true}
	for range maxAncestors {
		if h.Parent == "" {
			return h, nil
		}
		p, err := s.st.Header(ctx, h.Parent)
		if err != nil {
			return h, fmt.Errorf("cannot read %s, the session %s was forked from: %v", printable(oneLine(h.Parent, 120)), printable(oneLine(h.ID, 120)), err)
		}
		if seen[p.ID] {
			return h, fmt.Errorf("the sessions %s was forked from loop back to %s: the store is damaged", printable(oneLine(h.ID, 120)), printable(oneLine(p.ID, 120)))
		}
		seen[p.ID] = true
		h = p
	}
	return h, fmt.Errorf("session %s is forked more than %d deep; its tree is not shown", printable(oneLine(h.ID, 120)), maxAncestors)
}
