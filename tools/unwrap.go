package tools

// A wrapper is a Tool that embeds another to change part of it — its
// description (Redescribe), its Install — the way net/http middleware
// wraps a Handler. Embedding forwards the methods of the Tool interface,
// but hides the optional ones of the tool inside (Install, State): a
// wrapper that declares the tool it wraps with a method
//
//	Unwrap() Tool
//
// keeps them. Installer and State lookups (Toolset.Install, StateOf) ask
// the outermost tool first and then, through Unwrap, each tool inside, so
// a wrapper changes only what it overrides.

// Unwrap returns the tool t wraps, or nil when t declares none (see the
// Unwrap method above).
func Unwrap(t Tool) Tool {
	if w, ok := t.(interface{ Unwrap() Tool }); ok {
		return w.Unwrap()
	}
	return nil
}

// maxWrapDepth bounds the walk through wrappers, against a wrapper that
// returns itself.
const maxWrapDepth = 64

// installerOf returns the Installer of t or of a tool it wraps.
func installerOf(t Tool) (Installer, bool) {
	for range maxWrapDepth {
		if t == nil {
			return nil, false
		}
		if in, ok := t.(Installer); ok {
			return in, true
		}
		t = Unwrap(t)
	}
	return nil, false
}
