package offshoot

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// withoutTranscripts returns mounts with the transcripts directory left
// out of each mount that holds it: the agents' own records are no files
// of the project, and they grow with every run, toward the mount's cap.
func withoutTranscripts(mounts []vfs.Mount, transcripts string) []vfs.Mount {
	if transcripts == "" || len(mounts) == 0 {
		return mounts
	}
	dir, err := filepath.Abs(transcripts)
	if err != nil {
		return mounts
	}
	out := slices.Clone(mounts)
	for i, m := range out {
		host, err := filepath.Abs(m.HostPath)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(host, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out[i].Exclude = append(slices.Clone(m.Exclude), filepath.ToSlash(rel))
	}
	return out
}
