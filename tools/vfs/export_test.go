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

// The tools' parameter and result types, for the external tests.
type (
	EditParams   = editParams
	GlobParams   = globParams
	GlobResult   = globResult
	GrepMatch    = grepMatch
	GrepParams   = grepParams
	GrepResult   = grepResult
	ListParams   = listParams
	ListResult   = listResult
	ReadParams   = readParams
	ReadResult   = readResult
	RemoveParams = removeParams
	RemoveResult = removeResult
	WriteParams  = writeParams
	WriteResult  = writeResult
)

// The errors, reasons and functions the package keeps to itself, for the
// external tests.
var (
	ErrNotFound     = errNotFound
	ErrExists       = errExists
	ErrIsDirectory  = errIsDirectory
	ErrNotDirectory = errNotDirectory
	ErrStale        = errStale
	ErrContent      = errContent
	ErrInvalidPath  = errInvalidPath
	ErrOutsideRoots = errOutsideRoots
	LoadMounts      = loadMounts
)

type PathError = pathError

const (
	KindFile           = kindFile
	KindDirectory      = kindDirectory
	LeftSecret         = leftSecret
	LeftConfiguration  = leftConfiguration
	LeftVersionControl = leftVersionControl
	LeftIgnored        = leftIgnored
	LeftSpecial        = leftSpecial
	LeftUnreadable     = leftUnreadable
)

// NormalizePath is the normalization every path of the VFS goes through.
var NormalizePath = normalizePath

// The write-back's path check and diff, for the external tests.
var (
	HostPath    = hostPath
	UnifiedDiff = unifiedDiff
)

// MaxDiffWork bounds the work of one file's diff.
const MaxDiffWork = maxDiffWork

// DecodeBaseline decodes a mount baseline's JSON as snapshot JSON does,
// and returns its file paths and hashes.
func DecodeBaseline(data []byte) (map[string]string, error) {
	var b baseline
	err := b.UnmarshalJSON(data)
	return b.Files, err
}
