package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOf(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"offshoot itself, tagged", debug.BuildInfo{Main: debug.Module{Path: module, Version: "v1.4.0"}}, "v1.4.0"},
		{"offshoot itself, from a work tree", debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}}, "devel"},
		{"from a work tree with its commit", debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}, Settings: []debug.BuildSetting{rev}}, "devel+0123456789ab"},
		{"a program that uses offshoot", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "example.com/other", Version: "v0.1.0"}, {Path: module, Version: "v1.5.2"}}}, "v1.5.2"},
		{"a program that replaces it", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: module, Version: "v1.5.2", Replace: &debug.Module{Path: "../offshoot"}}}}, "v1.5.2"},
		{"nothing known", debug.BuildInfo{}, "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, of(&tt.info))
		})
	}
	assert.NotEmpty(t, Get())
}
