package cli

// OnInterrupt has f called when the user presses Ctrl-C, instead of the
// command's context being cancelled, until restore is called: for a
// command that stops only part of its work, as chat stops the turn that
// runs and goes on. Handlers nest: restore brings back the one before.
func (e *Env) OnInterrupt(f func()) (restore func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	before := e.onInterrupt
	e.onInterrupt = f
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.onInterrupt = before
	}
}

// Interrupt tells the command that the user pressed Ctrl-C. It calls the
// handler OnInterrupt set and reports true; with none it reports false,
// and the program cancels the command's context.
func (e *Env) Interrupt() bool {
	e.mu.Lock()
	f := e.onInterrupt
	e.mu.Unlock()
	if f == nil {
		return false
	}
	f()
	return true
}
