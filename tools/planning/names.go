package planning

import (
	"errors"
	"reflect"

	"github.com/offshoot-dev/offshoot/serde"
)

// names are the stable names of the plan and its event types in snapshot
// JSON ("offshoot.planning.Plan", …), so that it does not depend on this
// package's import path.
var names = map[reflect.Type]string{
	reflect.TypeFor[Plan]():        "offshoot.planning.Plan",
	reflect.TypeFor[PlanSetUp]():   "offshoot.planning.PlanSetUp",
	reflect.TypeFor[StepsAdded]():  "offshoot.planning.StepsAdded",
	reflect.TypeFor[StepUpdated](): "offshoot.planning.StepUpdated",
	reflect.TypeFor[StepMarked]():  "offshoot.planning.StepMarked",
	reflect.TypeFor[PlanCleared](): "offshoot.planning.PlanCleared",
}

// RegisterNames gives the plan and its event types stable names in reg
// ("offshoot.planning.Plan", …), so snapshot JSON holding them does not
// depend on this package's import path. serde.DefaultRegistry has them from
// the start, and installing the planning reducers adds them to the registry
// of the session, leaving alone any type the program named itself.
func RegisterNames(reg *serde.Registry) error {
	var errs []error
	for t, name := range names {
		errs = append(errs, reg.RegisterType(t, name))
	}
	return errors.Join(errs...)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }
