package task

// Background runs (run_in_background) and resuming an agent (resume) are
// not offered yet. This is the one place that says so: a call asking for
// either fails with a result saying what to do instead, before anything
// starts. An agent whose definition asks to run in the background
// (background: true) runs in the foreground meanwhile: its caller waits for
// its answer, which is the same answer.

// unsupported returns the failure of a call this program cannot run, or
// "".
func unsupported(in Input) string {
	switch {
	case in.Resume != "":
		return "This program cannot resume agents yet: call Task again without resume, and give the new agent everything it needs in its prompt."
	case in.RunInBackground:
		return "This program does not run tasks in the background yet: call Task again without run_in_background to run the agent now and wait for its answer."
	}
	return ""
}
