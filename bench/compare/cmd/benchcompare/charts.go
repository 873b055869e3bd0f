package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/offshoot-dev/offshoot/bench/compare"
)

// colors gives each framework one color in every chart; a streaming row
// shares its framework's color, drawn dashed.
var colors = map[string]color.Color{
	compare.Offshoot:       color.RGBA{R: 0x1b, G: 0x9e, B: 0x77, A: 0xff},
	compare.OffshootStream: color.RGBA{R: 0x1b, G: 0x9e, B: 0x77, A: 0xff},
	compare.OffshootTask:   color.RGBA{R: 0x66, G: 0xa6, B: 0x1e, A: 0xff},
	compare.Eino:           color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff},
	compare.EinoStream:     color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff},
	compare.Genkit:         color.RGBA{R: 0x75, G: 0x70, B: 0xb3, A: 0xff},
	compare.LangChainGo:    color.RGBA{R: 0xe7, G: 0x29, B: 0x8a, A: 0xff},
}

// series is one line of a chart: points in µs, non-positive ones dropped
// (a log scale cannot show them).
type series struct {
	name   string
	fw     string
	dashed bool
	xy     plotter.XYs
}

func (s *series) add(x, ns float64) {
	if ns > 0 {
		s.xy = append(s.xy, plotter.XY{X: x, Y: ns / 1e3})
	}
}

// writeCharts draws bench-loop.svg and bench-handoff.svg into dir.
func writeCharts(r results, dir string) error {
	var loop []series
	for _, fw := range loopFrameworks {
		s := series{name: fw, fw: fw, dashed: streaming[fw]}
		for _, k := range compare.LoopTurns {
			if f, ok := r.loop(fw, k); ok {
				s.add(float64(k), f.Ns)
			}
		}
		loop = append(loop, s)
	}
	if err := chart(filepath.Join(dir, "bench-loop.svg"), "Agent loop: a whole run of K tool-call turns", "K (turns)", "µs per run", compare.LoopTurns, loop); err != nil {
		return err
	}
	var handoff []series
	for _, fw := range handoffFrameworks {
		cost := series{name: fw + ": hand-off (with − parent only)", fw: fw}
		parent := series{name: fw + ": parent only", fw: fw, dashed: true}
		for _, n := range compare.HandoffEvents {
			if c, ok := r.handoffCost(fw, n); ok {
				cost.add(float64(n), c.Ns)
			}
			if f, ok := r.handoff(fw, compare.ParentOnly, n); ok {
				parent.add(float64(n), f.Ns)
			}
		}
		handoff = append(handoff, cost, parent)
	}
	return chart(filepath.Join(dir, "bench-handoff.svg"), "Hand-off to a subagent from a parent holding N events", "N (events the parent holds)", "µs", compare.HandoffEvents, handoff)
}

// chart draws series on log-log axes into path (SVG, fonts not embedded),
// with a tick at each of xs and room above the lines for the legend.
func chart(path, title, xLabel, yLabel string, xs []int, ss []series) error {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	var ticks []plot.Tick
	for _, x := range xs {
		ticks = append(ticks, plot.Tick{Value: float64(x), Label: fmtCount(float64(x))})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(ticks), plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	entries := 0
	for _, s := range ss {
		if len(s.xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, s.name, err)
		}
		line.Color, points.Color = colors[s.fw], colors[s.fw]
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			points.Shape = draw.RingGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		entries++
	}
	// One decade of headroom per three legend entries keeps the legend
	// clear of the lines.
	p.Y.Max *= math.Pow(10, math.Ceil(float64(entries)/3))
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("drawing %s: %w", path, err)
	}
	return nil
}
