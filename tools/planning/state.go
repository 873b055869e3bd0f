package planning

import (
	"github.com/offshoot-dev/offshoot/session"
)

// installKey is the key under which the planning reducers are installed on
// a session (see session.Install): once per session, carried by forks.
const installKey = "github.com/offshoot-dev/offshoot/tools/planning"

// CurrentPlan returns the session's plan, and false when it has none. It is
// one atomic load, never blocked by writers.
func CurrentPlan(s *session.Session) (Plan, bool) {
	p, _ := session.Latest[Plan](s)
	return p, p.Exists()
}

// PlanOf returns the plan a snapshot holds, and false when it has none.
func PlanOf(snap session.Snapshot) (Plan, bool) {
	p, _ := session.SliceOfSnapshot[Plan](snap).Latest()
	return p, p.Exists()
}

// Reducers returns what the planning events need on a session: a reducer
// per event type, each folding its event into the session's Plan slice
// (the slice holds the current plan as its only value), under
// the package's key, and the names of the types. The planning tools declare it;
// install it yourself to dispatch planning events to a session that has no
// planning tools:
//
//	err := s.Install(ctx, planning.Reducers())
func Reducers() session.Reducers {
	return session.Reducers{
		Key: installKey,
		Rules: []session.Rule{
			session.On(reducer[PlanSetUp]), session.On(reducer[stepsAdded]), session.On(reducer[stepUpdated]),
			session.On(reducer[StepMarked]), session.On(reducer[planCleared]),
		},
		Names: names,
	}
}

// reducer applies a planning event to the current plan, replacing it.
func reducer[E any](rc session.ReducerContext, sl session.Slice[Plan], event E) (session.Slice[Plan], error) {
	cur, _ := sl.Latest()
	next, err := apply(cur, event)
	if err != nil {
		return sl, err
	}
	return session.ReplaceLatest(rc, sl, next)
}
