package cli

import "path/filepath"

// TranscriptsPath is where, under the project directory, offshoot keeps
// the transcripts of the subagents its runs delegate to (see
// subagent.Options.Transcripts), and where the transcripts command reads them.
const TranscriptsPath = ".offshoot/transcripts"

// TranscriptsDir returns the project's transcripts directory: the
// directory to give subagent.Options.Transcripts and to read with
// transcript.Dir.
func (e *Env) TranscriptsDir() string {
	return filepath.Join(e.ProjectDir, filepath.FromSlash(TranscriptsPath))
}
