package runner

import (
	"errors"
	"reflect"

	"github.com/offshoot-dev/offshoot/serde"
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
	reflect.TypeFor[ChildUsage]():          "offshoot.runner.ChildUsage",
}

// reducers are the runner's own: the cursor of the inbound messages read,
// and the names of its records. Evaluate installs them with the toolset's.
var reducers = session.Reducers{
	Key:   "offshoot.runner",
	Rules: []session.Rule{session.On(session.ReplaceLatest[InboundRead])},
	Names: names,
}

// RegisterNames gives the runner's records stable names in reg
// ("offshoot.runner.ToolInvoked", …), so snapshot JSON holding them does not
// depend on this package's import path. serde.DefaultRegistry has them from
// the start; Evaluate adds them to the registry of the session it runs on.
func RegisterNames(reg *serde.Registry) error {
	var errs []error
	for t, name := range names {
		errs = append(errs, reg.RegisterType(t, name))
	}
	return errors.Join(errs...)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }

func inboundCursor(s *session.Session) int {
	read, _ := session.Latest[InboundRead](s)
	return min(read.Upto, session.Len[Inbound](s))
}
