package planning

// The tools' parameter and result types, for the external tests.
type (
	AddStepsParams = addStepsParams
	MarkStepParams = markStepParams
	SetupParams    = setupParams
)
