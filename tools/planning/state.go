package planning

import (
	"github.com/offshoot-dev/offshoot/session"
)

// InstallKey is the key under which the planning reducers are installed on
// a session (see session.Install): once per session, carried by forks.
const InstallKey = "github.com/offshoot-dev/offshoot/tools/planning"

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

// Install registers the planning reducers on s, once (under InstallKey).
// The tools do it themselves through their Install method; call Install to
// dispatch planning events to a session that has no planning tools.
func Install(s *session.Session) error {
	return s.Install(InstallKey, register)
}

// register adds a reducer per event type, each folding its event into the
// session's Plan slice with Apply: the slice holds the current plan as its
// only value.
func register(s *session.Session) error {
	_ = RegisterNames(s.Registry()) // a program's own names win
	if err := session.Register(s, reducer[PlanSetUp]); err != nil {
		return err
	}
	if err := session.Register(s, reducer[StepsAdded]); err != nil {
		return err
	}
	if err := session.Register(s, reducer[StepUpdated]); err != nil {
		return err
	}
	if err := session.Register(s, reducer[StepMarked]); err != nil {
		return err
	}
	return session.Register(s, reducer[PlanCleared])
}

// reducer applies a planning event to the current plan, replacing it.
func reducer[E any](rc session.ReducerContext, sl session.Slice[Plan], event E) (session.Slice[Plan], error) {
	cur, _ := sl.Latest()
	next, err := Apply(cur, event)
	if err != nil {
		return sl, err
	}
	return session.ReplaceLatest(rc, sl, next)
}
