package frontmatter

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitToolList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Read, Grep, Glob", []string{"Read", "Grep", "Glob"}},
		{"Read,Grep", []string{"Read", "Grep"}},
		{"Read Grep\tGlob", []string{"Read", "Grep", "Glob"}},
		{"Bash(git add:*, git commit:*), Read", []string{"Bash(git add:*, git commit:*)", "Read"}},
		{"Bash(npm run (test)), Read", []string{"Bash(npm run (test))", "Read"}},
		{" , ,, ", nil},
		{"", nil},
		{"a,,b", []string{"a", "b"}},
		{"x) y(z, w", []string{"x)", "y(z, w"}},
		{"mcp__github__*, planning_*", []string{"mcp__github__*", "planning_*"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, SplitToolList(tt.in), tt.in)
	}
}
