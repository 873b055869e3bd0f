package task

// Names the tests of package task_test use.
type (
	OutputResult = outputResult
	StopResult   = stopResult
)

const (
	RetrievalSuccess  = retrievalSuccess
	RetrievalTimeout  = retrievalTimeout
	RetrievalNotReady = retrievalNotReady
)

// Input is the Task tool's input.
type Input = input
