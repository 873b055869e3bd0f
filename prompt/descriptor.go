package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/offshoot-dev/offshoot/tools"
)

// Descriptor identifies the contract of a prompt's parts by hash: a
// SHA-256 of each section's template source and of each tool's contract
// (name, description, parameter and result schemas). Overrides are keyed by
// these hashes, so an override written for one version of a section or
// tool is not applied to a changed one.
type Descriptor struct {
	// NS and Key identify the prompt.
	NS, Key string
	// sections lists every section, depth first, enabled or not.
	sections []hashedSection
	// tools lists every tool, in section order.
	tools []hashedTool
}

// hashedSection is the hash of one section's template.
type hashedSection struct {
	// Path is the section's path of keys, such as "tools/files".
	Path string `json:"path"`
	// Hash is the hex SHA-256 of the dedented template source.
	Hash string `json:"hash"`
}

// hashedTool is the hash of one tool's contract.
type hashedTool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Hash is the hex SHA-256 of its name, description and schemas.
	Hash string `json:"hash"`
}

// SectionHash returns the hash of the section at path.
func (d Descriptor) SectionHash(path string) (string, bool) {
	for _, s := range d.sections {
		if s.Path == path {
			return s.Hash, true
		}
	}
	return "", false
}

// ToolHash returns the contract hash of the tool named name.
func (d Descriptor) ToolHash(name string) (string, bool) {
	for _, t := range d.tools {
		if t.Name == name {
			return t.Hash, true
		}
	}
	return "", false
}

// Hash returns the hex SHA-256 of the whole contract: the prompt's
// namespace and key, each section's path and template hash, and each
// tool's contract hash, in order. Two builds of a prompt have the same
// Hash when none of these changed.
func (d Descriptor) Hash() string {
	h := sha256.New()
	line := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		h.Write([]byte{'\n'})
	}
	line("prompt", d.NS, d.Key)
	for _, s := range d.sections {
		line("section", s.Path, s.Hash)
	}
	for _, t := range d.tools {
		line("tool", t.Name, t.Hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (d Descriptor) clone() Descriptor {
	d.sections = slices.Clone(d.sections)
	d.tools = slices.Clone(d.tools)
	return d
}

func (w *treeWalk) descriptor(ns, key string) Descriptor {
	d := Descriptor{NS: ns, Key: key, sections: w.hashes}
	for _, t := range w.toolList {
		d.tools = append(d.tools, hashedTool{Name: t.Spec().Name, Hash: toolHash(t)})
	}
	return d
}

// hashText is the hex SHA-256 of s.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// toolHash hashes a tool's contract: its name, description and schemas,
// each followed by a NUL byte.
func toolHash(t tools.Tool) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(t.Spec().Name), []byte(t.Spec().Description), t.Spec().Params, t.Spec().Result} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
