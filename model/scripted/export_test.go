package scripted

// What the package keeps to itself, for its external tests.
type (
	UnexpectedRequestError = unexpectedRequestError
	UnrecordedRequestError = unrecordedRequestError
	RecordedError          = recordedError
	ScriptError            = scriptError
)

var RequestHash = requestHash
