package vfs

// The .gitignore bounds, for the external tests.
const (
	MaxGitignorePatterns = maxGitignorePatterns
	MaxIgnoreWildcards   = maxIgnoreWildcards
	MaxIgnoreSegments    = maxIgnoreSegments
)

// WithVisitHook returns m with f called on each path its walk reaches,
// before the path is looked at.
func WithVisitHook(m Mount, f func(rel string)) Mount {
	m.onVisit = f
	return m
}
