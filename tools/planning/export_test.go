package planning

// The tools' parameter and result types, for the external tests.
type (
	AddStepsParams = addStepsParams
	MarkStepParams = markStepParams
	SetupParams    = setupParams
)

// The events, errors and functions the package keeps to itself, for the
// external tests.
type (
	StepsAdded  = stepsAdded
	StepUpdated = stepUpdated
	PlanCleared = planCleared
)

var (
	Apply           = apply
	NormalizeStepID = normalizeStepID
	ErrNoPlan       = errNoPlan
	ErrNotActive    = errNotActive
	ErrUnknownStep  = errUnknownStep
	ErrTooManySteps = errTooManySteps
	ErrNothingToDo  = errNothingToDo
)
