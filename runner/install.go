package runner

import (
	"errors"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// installKey names the runner's own reducers in session.Install.
const installKey = "offshoot.runner"

// install registers the reducers of the runner's own records and gives
// them stable names in the session's registry (a program's own names win).
func install(s *session.Session) error {
	return s.Install(installKey, func(s *session.Session) error {
		_ = RegisterNames(s.Registry())
		return session.Register(s, session.ReplaceLatest[InboundRead])
	})
}

// RegisterNames gives the runner's records stable names in reg
// ("offshoot.runner.ToolInvoked", …), so snapshot JSON holding them does not
// depend on this package's import path. serde.DefaultRegistry has them from
// the start; Evaluate adds them to the registry of the session it runs on.
func RegisterNames(reg *serde.Registry) error {
	return errors.Join(
		serde.Register[PromptRendered](reg, "offshoot.runner.PromptRendered"),
		serde.Register[ModelCalled](reg, "offshoot.runner.ModelCalled"),
		serde.Register[ToolInvoked](reg, "offshoot.runner.ToolInvoked"),
		serde.Register[PromptExecuted](reg, "offshoot.runner.PromptExecuted"),
		serde.Register[ConversationMessage](reg, "offshoot.runner.ConversationMessage"),
		serde.Register[Inbound](reg, "offshoot.runner.Inbound"),
		serde.Register[InboundRead](reg, "offshoot.runner.InboundRead"),
		serde.Register[ChildUsage](reg, "offshoot.runner.ChildUsage"),
	)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }

func inboundCursor(s *session.Session) int {
	read, _ := session.Latest[InboundRead](s)
	return min(read.Upto, session.Len[Inbound](s))
}
