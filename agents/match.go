package agents

import (
	"slices"
	"strings"
)

// Find returns the definition a Task call's subagent_type names. It tries,
// in order: the exact name; a built-in alias (general); the name ignoring
// case and separators ("Code Reviewer", "code_reviewer" and "CodeReviewer"
// all find code-reviewer, when only one agent fits); and, when
// Options.MatchDescriptions is set, the agent whose name and description
// share the most words with what was asked for.
//
// The error is ErrNoAgents when the registry is empty, a *NotFoundError
// listing the available agents when nothing matches, or the *Diagnostic of
// the error that kept the named agent from loading.
func (r *Registry) Find(subagentType string) (Definition, error) {
	if name, ok := r.match(strings.TrimSpace(subagentType)); ok {
		if def, ok := r.defs[name]; ok {
			return def.clone(), nil
		}
		return Definition{}, r.broken[name]
	}
	if len(r.defs) == 0 {
		return Definition{}, ErrNoAgents
	}
	return Definition{}, &NotFoundError{Name: subagentType, Available: slices.Clone(r.names)}
}

// match returns the name q stands for.
func (r *Registry) match(q string) (string, bool) {
	if q == "" {
		return "", false
	}
	for _, c := range []string{q, slugify(q)} {
		if r.has(c) {
			return c, true
		}
		if t, ok := r.aliases[c]; ok && r.has(t) {
			return t, true
		}
	}
	if sq := squash(q); sq != "" {
		var hits []string
		add := func(name, target string) {
			if squash(name) == sq && r.has(target) && !slices.Contains(hits, target) {
				hits = append(hits, target)
			}
		}
		for n := range r.defs {
			add(n, n)
		}
		for n := range r.broken {
			add(n, n)
		}
		for a, t := range r.aliases {
			add(a, t)
		}
		if len(hits) == 1 {
			return hits[0], true
		}
	}
	if r.byDesc {
		return r.byDescription(q)
	}
	return "", false
}

// has reports whether name is taken, by a definition or by one that failed
// to load.
func (r *Registry) has(name string) bool {
	_, ok := r.defs[name]
	_, bad := r.broken[name]
	return ok || bad
}

// squash returns s lower-cased with everything but letters and digits
// removed.
func squash(s string) string {
	return strings.ReplaceAll(slugify(s), "-", "")
}

// stopWords are words too common to tell agents apart.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"into": true, "use": true, "when": true, "you": true, "your": true, "are": true, "can": true,
	"will": true, "agent": true, "subagent": true, "task": true, "tasks": true, "any": true,
}

// words returns the set of significant words of s, lower-cased.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		if len(w) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// sameStem reports whether two words share a beginning as long as the
// shorter word or four letters, so that "run" meets "runs" and "failing"
// meets "failures".
func sameStem(a, b string) bool {
	n := min(len(a), len(b), 4)
	return a[:n] == b[:n]
}

// byDescription returns the agent whose name and description contain the
// largest share (at least half) of q's words, counting words that share a
// stem, when exactly one does.
func (r *Registry) byDescription(q string) (string, bool) {
	qw := words(q)
	if len(qw) == 0 {
		return "", false
	}
	best, bestScore, tie := "", 0, false
	for _, name := range r.names {
		def := r.defs[name]
		have := words(name + " " + def.Description)
		score := 0
		for w := range qw {
			for h := range have {
				if sameStem(w, h) {
					score++
					break
				}
			}
		}
		switch {
		case score > bestScore:
			best, bestScore, tie = name, score, false
		case score == bestScore && score > 0:
			tie = true
		}
	}
	if tie || 2*bestScore < len(qw) {
		return "", false
	}
	return best, true
}
