package planning

import (
	"reflect"
)

// names are the stable names of the plan and its event types in snapshot
// JSON ("offshoot.planning.Plan", …), so that it does not depend on this
// package's import path.
var names = map[reflect.Type]string{
	reflect.TypeFor[Plan]():        "offshoot.planning.Plan",
	reflect.TypeFor[PlanSetUp]():   "offshoot.planning.PlanSetUp",
	reflect.TypeFor[stepsAdded]():  "offshoot.planning.StepsAdded",
	reflect.TypeFor[stepUpdated](): "offshoot.planning.StepUpdated",
	reflect.TypeFor[StepMarked]():  "offshoot.planning.StepMarked",
	reflect.TypeFor[planCleared](): "offshoot.planning.PlanCleared",
}
