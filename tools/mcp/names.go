package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest tool name a model accepts.
const maxName = 64

// ToolName returns the name offshoot gives the tool called tool of the
// server called server: "mcp__" + server + "__" + tool, as in Claude Code,
// with every character other than an ASCII letter, a digit, '_' or '-'
// replaced by '_' so that the name fits the tool-name pattern
// ^[A-Za-z0-9_-]{1,64}$. A name that would be longer than 64 characters
// keeps its first 55 and ends with '_' and 8 hexadecimal digits of a hash
// of the server's and the tool's names, so it stays unique and stable.
//
// With tool empty it returns "mcp__" + server: the tools.Filter entry
// that stands for all the server's tools.
func toolName(server, tool string) string {
	name := "mcp__" + sanitize(server)
	if tool == "" {
		return name
	}
	name += "__" + sanitize(tool)
	if len(name) > maxName {
		return hashed(name, server, tool)
	}
	return name
}

// hashed shortens name to 64 characters, the last 9 of which are '_' and a
// hash of server and tool.
func hashed(name, server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	if len(name) > maxName-9 {
		name = name[:maxName-9]
	}
	return name + "_" + hex.EncodeToString(sum[:4])
}

// sanitize replaces each character of s that may not appear in a tool
// name with '_'.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
