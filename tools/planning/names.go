package planning

import (
	"errors"

	"github.com/offshoot-dev/offshoot/serde"
)

// RegisterNames gives the plan and its event types stable names in reg
// ("offshoot.planning.Plan", …), so snapshot JSON holding them does not
// depend on this package's import path. serde.DefaultRegistry has them from
// the start, and Install adds them to the registry of the session it
// installs on, leaving alone any type the program named itself.
func RegisterNames(reg *serde.Registry) error {
	return errors.Join(
		serde.Register[Plan](reg, "offshoot.planning.Plan"),
		serde.Register[PlanSetUp](reg, "offshoot.planning.PlanSetUp"),
		serde.Register[StepsAdded](reg, "offshoot.planning.StepsAdded"),
		serde.Register[StepUpdated](reg, "offshoot.planning.StepUpdated"),
		serde.Register[StepMarked](reg, "offshoot.planning.StepMarked"),
		serde.Register[PlanCleared](reg, "offshoot.planning.PlanCleared"),
	)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }
