package runner

import "github.com/offshoot-dev/offshoot/model"

// worker runs the calls of an evaluation that run one at a time, on a
// goroutine of its own, so that a tool calling runtime.Goexit ends that
// goroutine and not the evaluation's (see run.execute). The goroutine is
// kept from call to call: a new goroutine for every call would grow a new
// stack as deep as a tool's calls each time, which costs several times
// the handing over of a call (BenchmarkEvaluate: about 10 µs more per
// turn, against 1 to 2 µs). The zero worker is ready; stop ends its
// goroutine. It is used by one goroutine at a time.
type worker struct {
	jobs chan job // nil while no goroutine serves them
	ends chan jobEnd
}

// job is one call for the worker to execute.
type job struct {
	r   *run
	c   model.ToolCall
	res *callResult
}

// jobEnd is how a job ended: normally, by ending the goroutine, or with a
// panic outside what execute recovers.
type jobEnd struct {
	goexit   bool
	panicked bool
	value    any
}

// execute runs r.execute(c, res) on the worker's goroutine and waits for
// it to end, starting a goroutine when there is none (at first, or after
// a call ended it). A panic is raised again on the caller's goroutine.
func (w *worker) execute(r *run, c model.ToolCall, res *callResult) {
	if w.jobs == nil {
		w.jobs, w.ends = make(chan job), make(chan jobEnd, 1)
		go serve(w.jobs, w.ends)
	}
	w.jobs <- job{r: r, c: c, res: res}
	end := <-w.ends
	if end.goexit || end.panicked {
		w.jobs = nil
	}
	if end.panicked {
		panic(end.value)
	}
}

// stop ends the worker's goroutine, if it has one, and waits until it has
// done its last work.
func (w *worker) stop() {
	if w.jobs != nil {
		close(w.jobs)
		<-w.ends
		w.jobs = nil
	}
}

// serve executes jobs until they are closed, reporting how each one
// ended, and then that it stopped.
func serve(jobs <-chan job, ends chan<- jobEnd) {
	running := false
	defer func() {
		if !running {
			return
		}
		if v := recover(); v != nil {
			ends <- jobEnd{panicked: true, value: v}
			return
		}
		ends <- jobEnd{goexit: true}
	}()
	for j := range jobs {
		running = true
		j.r.execute(j.c, j.res)
		running = false
		ends <- jobEnd{}
	}
	ends <- jobEnd{}
}
