package compare

import (
	"fmt"
	"testing"
)

// The frameworks measured. A framework measured in a second way — with
// streaming on, or through a second front end — is a row of its own.
const (
	Offshoot = "offshoot"
	// OffshootStream is offshoot's loop with streaming on: a streaming
	// model, and an observer of the streamed pieces on the session's bus.
	OffshootStream = "offshoot-stream"
	// OffshootTask is offshoot's hand-off through the Task tool, to an
	// agent that carries on its caller's conversation (forkContext).
	OffshootTask = "offshoot-task"
	Eino         = "eino"
	// EinoStream is eino's loop with streaming on (adk.Runner's
	// EnableStreaming), every streamed message read as it arrives.
	EinoStream  = "eino-stream"
	Genkit      = "genkit"
	LangChainGo = "langchaingo"
)

// The workloads.
const (
	// Loop is workload A: K turns of one echo call, then a final answer.
	Loop = "loop"
	// Handoff is workload B: a parent holding N events hands its context to
	// a one-turn child.
	Handoff = "handoff"
	// Scale is the live heap added by concurrent children of a parent
	// holding ScaleParentEvents events.
	Scale = "scale"
)

// The variants of the hand-off workload.
const (
	// WithHandoff is the parent turn that hands its context to a child.
	WithHandoff = "handoff"
	// ParentOnly is the control: the same parent turn calling the echo tool
	// instead of handing off.
	ParentOnly = "parent-only"
)

// Sizes every run uses.
var (
	// LoopTurns are the K of the loop workload.
	LoopTurns = []int{1, 10, 50}
	// HandoffEvents are the N of the hand-off workload.
	HandoffEvents = []int{10, 100, 1_000, 10_000, 100_000}
)

// ScaleParentEvents is how many events the parent of the scale workload
// holds.
const ScaleParentEvents = 100_000

// ScaleTarget is the number of concurrent children the scale target speaks
// of; frameworks that copy the parent's context per child run fewer, and
// their figure is scaled up linearly (each child holds its own copy).
const ScaleTarget = 1_000

// scaleChildren is how many concurrent children each framework runs in the
// scale workload: 1,000 where the machine can hold them, fewer where each
// child holds a copy of the parent's 100,000 events.
var scaleChildren = map[string]int{Offshoot: 1_000, OffshootTask: 1_000, Eino: 100, Genkit: 10}

// Case is one benchmark: a framework doing one workload at one size.
type Case struct {
	Workload  string
	Framework string
	// Variant is WithHandoff or ParentOnly for the hand-off workload, empty
	// otherwise.
	Variant string
	// Size is K for the loop, N for the hand-off, and the number of
	// concurrent children for the scale workload.
	Size int
	// Bench runs the case.
	Bench func(b *testing.B)
}

// Name is the case's benchmark name below its workload:
// "eino/K=10", "genkit/parent-only/N=1000", "offshoot/children=1000".
func (c Case) Name() string {
	switch c.Workload {
	case Loop:
		return fmt.Sprintf("%s/K=%d", c.Framework, c.Size)
	case Handoff:
		return fmt.Sprintf("%s/%s/N=%d", c.Framework, c.Variant, c.Size)
	default:
		return fmt.Sprintf("%s/children=%d", c.Framework, c.Size)
	}
}

// Cases lists every case of every workload, in a stable order: workload,
// framework, variant, size.
func Cases() []Case {
	var cs []Case
	loops := []struct {
		fw  string
		rig func(tb testing.TB, k int) *rig
	}{
		{Offshoot, offshootLoop}, {OffshootStream, offshootStreamLoop}, {Eino, einoLoop}, {EinoStream, einoStreamLoop},
		{Genkit, genkitLoop}, {LangChainGo, langchaingoLoop},
	}
	for _, l := range loops {
		for _, k := range LoopTurns {
			build := l.rig
			cs = append(cs, Case{Workload: Loop, Framework: l.fw, Size: k, Bench: benchRig(func(tb testing.TB) *rig { return build(tb, k) })})
		}
	}
	// langchaingo has no subagent or shared state to hand over, so it sits
	// out the hand-off and scale workloads.
	handoffs := []struct {
		fw  string
		rig func(tb testing.TB, n int, handoff bool) *rig
	}{
		{Offshoot, offshootHandoff}, {OffshootTask, offshootTaskHandoff}, {Eino, einoHandoff}, {Genkit, genkitHandoff},
	}
	for _, h := range handoffs {
		for _, v := range []string{WithHandoff, ParentOnly} {
			for _, n := range HandoffEvents {
				build, handoff := h.rig, v == WithHandoff
				cs = append(cs, Case{Workload: Handoff, Framework: h.fw, Variant: v, Size: n,
					Bench: benchRig(func(tb testing.TB) *rig { return build(tb, n, handoff) })})
			}
		}
	}
	scales := []struct {
		fw     string
		parent func(tb testing.TB, events, children int) scaleRun
	}{
		{Offshoot, offshootScale}, {OffshootTask, offshootTaskScale}, {Eino, einoScale}, {Genkit, genkitScale},
	}
	for _, s := range scales {
		c, build := scaleChildren[s.fw], s.parent
		cs = append(cs, Case{Workload: Scale, Framework: s.fw, Size: c, Bench: func(b *testing.B) {
			measureChildren(b, c, build(b, ScaleParentEvents, c))
		}})
	}
	return cs
}
