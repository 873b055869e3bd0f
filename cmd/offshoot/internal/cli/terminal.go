package cli

import (
	"os"

	"golang.org/x/term"
)

// StdoutIsTerminal reports whether standard output is a terminal (a
// character device), where progress can be shown as it happens.
func (e *Env) StdoutIsTerminal() bool {
	f, ok := e.Stdout.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// UseColor reports whether a command may print colours: on a terminal
// only, unless --no-color was given (noColor), the NO_COLOR variable is set
// (https://no-color.org) or TERM is "dumb".
func (e *Env) UseColor(noColor bool) bool {
	return !noColor && e.Getenv("NO_COLOR") == "" && e.Getenv("TERM") != "dumb" && e.StdoutIsTerminal()
}

// TerminalWidth is the width in columns of the terminal standard output
// is, or 0 when it is not a terminal (lines are then printed whole). A
// terminal that does not tell its size is taken as 80 columns wide.
func (e *Env) TerminalWidth() int {
	if !e.StdoutIsTerminal() {
		return 0
	}
	if w, _, err := term.GetSize(int(e.Stdout.(*os.File).Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}
