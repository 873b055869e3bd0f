package runner

import (
	"context"

	"github.com/offshoot-dev/offshoot/session"
)

// installKey names the runner's own reducers in session.Install.
const installKey = "offshoot.runner"

// install registers the reducers of the runner's own records.
func install(s *session.Session) error {
	return s.Install(installKey, func(s *session.Session) error {
		return session.Register(s, session.ReplaceLatest[InboundRead])
	})
}

func inboundCursor(s *session.Session) int {
	read, _ := session.Latest[InboundRead](s)
	return min(read.Upto, session.Len[Inbound](s))
}

// SkipInbound marks every Inbound message the session holds as delivered,
// so evaluations on it deliver only later ones. The subagent engine calls it
// on a forked child, whose copy of the parent's pending messages is not its
// own. It changes nothing when nothing is pending.
func SkipInbound(s *session.Session) error {
	n := session.Len[Inbound](s)
	if inboundCursor(s) >= n {
		return nil
	}
	if err := install(s); err != nil {
		return err
	}
	return s.Dispatch(context.Background(), InboundRead{Upto: n})
}
