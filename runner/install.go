package runner

import (
	"reflect"

	"github.com/offshoot-dev/offshoot/session"
)

// names are the stable names of the runner's records in snapshot JSON
// ("offshoot.runner.ToolInvoked", …), so that it does not depend on this
// package's import path.
var names = map[reflect.Type]string{
	reflect.TypeFor[PromptRendered]():      "offshoot.runner.PromptRendered",
	reflect.TypeFor[ModelCalled]():         "offshoot.runner.ModelCalled",
	reflect.TypeFor[ToolInvoked]():         "offshoot.runner.ToolInvoked",
	reflect.TypeFor[PromptExecuted]():      "offshoot.runner.PromptExecuted",
	reflect.TypeFor[ConversationMessage](): "offshoot.runner.ConversationMessage",
	reflect.TypeFor[Inbound]():             "offshoot.runner.Inbound",
	reflect.TypeFor[InboundRead]():         "offshoot.runner.InboundRead",
	reflect.TypeFor[Spent]():               "offshoot.runner.Spent",
	reflect.TypeFor[ContextUsage]():        "offshoot.runner.ContextUsage",
	reflect.TypeFor[Compacted]():           "offshoot.runner.Compacted",
	reflect.TypeFor[ToolResultsCleared]():  "offshoot.runner.ToolResultsCleared",
	reflect.TypeFor[Waiting]():             "offshoot.runner.Waiting",
}

// reducers are the runner's own: the cursor of the inbound messages read,
// and the names of its records. Evaluate installs them with the toolset's.
var reducers = session.Reducers{
	Key:   "offshoot.runner",
	Rules: []session.Rule{session.On(session.ReplaceLatest[InboundRead])},
	Names: names,
}

// Reducers returns what the runner installs on every session it evaluates
// on: the cursor of the inbound messages read, and stable names for its
// records ("offshoot.runner.ToolInvoked", …) in the session's registry, so
// that snapshot JSON does not depend on this package's import path. To
// decode such snapshots with a registry of your own, name them there:
//
//	err := runner.Reducers().Name(reg)
func Reducers() session.Reducers { return reducers }

func inboundCursor(s *session.Session) int {
	read, _ := session.Latest[InboundRead](s)
	return min(read.Upto, session.Len[Inbound](s))
}
