package model

// The limits the package keeps to itself, for its external tests.
const (
	MaxConfigBytes = maxConfigBytes
)
