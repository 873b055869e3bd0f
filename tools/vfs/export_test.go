package vfs

// The limits the package keeps to itself, for its external tests.
const (
	MaxContentChars  = maxContentChars
	MaxGlobMatches   = maxGlobMatches
	MaxGrepMatches   = maxGrepMatches
	MaxListEntries   = maxListEntries
	MaxPathSegments  = maxPathSegments
	MaxSegmentLength = maxSegmentLength
)
