package progress

// style is an ANSI display attribute.
type style string

const (
	bold  style = "1"
	dim   style = "2"
	red   style = "31"
	green style = "32"
	cyan  style = "36"
)

// painter returns a func that wraps text in a style when on, and returns
// it as it is otherwise.
func painter(on bool) func(style, string) string {
	if !on {
		return func(_ style, s string) string { return s }
	}
	return func(st style, s string) string { return "\x1b[" + string(st) + "m" + s + "\x1b[0m" }
}
