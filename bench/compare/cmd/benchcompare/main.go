// Command benchcompare runs the benchmarks of package compare — offshoot
// against eino, genkit and langchaingo — several times with GOMAXPROCS
// fixed, takes the medians, and writes them into the generated section of
// docs/benchmarks.md and the charts docs/bench-loop.svg and
// docs/bench-handoff.svg.
//
// Run it from bench/compare:
//
//	go run ./cmd/benchcompare                       # 3 runs of 1s per case, GOMAXPROCS=2
//	go run ./cmd/benchcompare -count 5 -benchtime 2s
//	go run ./cmd/benchcompare -run '^loop/' -dry    # some cases, print only
//
// The runs interleave the cases (every case once per run), so a burst of
// noise on a shared machine touches every framework alike. With -run or
// -dry nothing is written: the document always holds one complete run.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/bench/compare"
)

// config is what the flags set.
type config struct {
	count     int
	benchtime string
	procs     int
	run       string
	docs      string
	dry       bool
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, progress io.Writer) error {
	cfg, err := parseFlags(args, progress)
	if err != nil {
		return err
	}
	cases, err := selectCases(cfg.run)
	if err != nil {
		return err
	}
	testing.Init()
	if err := flag.CommandLine.Set("test.benchtime", cfg.benchtime); err != nil {
		return fmt.Errorf("-benchtime %q: %w; give a duration such as 1s or a count such as 100x", cfg.benchtime, err)
	}
	runtime.GOMAXPROCS(cfg.procs)

	s := samples{}
	for i := 1; i <= cfg.count; i++ {
		for _, c := range cases {
			f, err := measure(c)
			if err != nil {
				return err
			}
			s.add(c, f)
			fmt.Fprintf(progress, "run %d/%d  %-42s %10s %10s %8s allocs%s\n", i, cfg.count, c.Workload+"/"+c.Name(),
				fmtNs(f.Ns), fmtBytes(f.Bytes), fmtCount(f.Allocs), extras(f))
		}
	}
	r := s.medians()
	m := describeMachine(cfg.procs, cfg.docs)
	var block bytes.Buffer
	(&report{w: &block, r: r, m: m, cfg: cfg}).write()
	if cfg.dry || cfg.run != "" {
		_, err := stdout.Write(block.Bytes())
		return err
	}
	return publish(cfg.docs, block.String(), r)
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&cfg.count, "count", 3, "runs of every case; the report gives their medians")
	fs.StringVar(&cfg.benchtime, "benchtime", "1s", "time (or NNNx iterations) per case and run, as go test -benchtime")
	fs.IntVar(&cfg.procs, "procs", 2, "GOMAXPROCS for every case")
	fs.StringVar(&cfg.run, "run", "", "run only the cases whose workload/name matches this regexp (loop/eino/K=10, handoff/genkit/parent-only/N=1000, scale/offshoot/children=1000); prints, writes nothing")
	fs.StringVar(&cfg.docs, "docs", filepath.Join("..", "..", "docs"), "the docs folder holding benchmarks.md; the charts are written beside it")
	fs.BoolVar(&cfg.dry, "dry", false, "print the generated section instead of writing the docs")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments %q; every setting is a flag (see -h)", fs.Args())
	case cfg.count < 1:
		return cfg, fmt.Errorf("-count %d: give at least 1 run", cfg.count)
	case cfg.procs < 1:
		return cfg, fmt.Errorf("-procs %d: give at least 1", cfg.procs)
	}
	return cfg, nil
}

// selectCases returns the cases whose workload/name matches pattern (all
// for an empty one).
func selectCases(pattern string) ([]compare.Case, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("-run %q: %w", pattern, err)
	}
	var out []compare.Case
	for _, c := range compare.Cases() {
		if re.MatchString(c.Workload + "/" + c.Name()) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-run %q matches no case; names look like loop/eino/K=10, handoff/offshoot/handoff/N=100, scale/genkit/children=10", pattern)
	}
	return out, nil
}

// measure runs one case once with testing.Benchmark.
func measure(c compare.Case) (figure, error) {
	res := testing.Benchmark(c.Bench)
	if res.N == 0 {
		workload := map[string]string{compare.Loop: "Loop", compare.Handoff: "Handoff", compare.Scale: "Scale"}[c.Workload]
		return figure{}, fmt.Errorf("case %s/%s failed; see why with: go test -run '^$' -bench 'Benchmark%s/^%s$'",
			c.Workload, c.Name(), workload, strings.ReplaceAll(c.Name(), "/", "$/^"))
	}
	n := float64(res.N)
	return figure{Ns: float64(res.T.Nanoseconds()) / n, Bytes: float64(res.MemBytes) / n, Allocs: float64(res.MemAllocs) / n, Extra: res.Extra}, nil
}

// publish writes the block into docs/benchmarks.md between its markers and
// draws the charts beside it.
func publish(docs, block string, r results) error {
	path := filepath.Join(docs, "benchmarks.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w; run from bench/compare or point -docs at the docs folder", err)
	}
	out, err := replaceGenerated(string(doc), block)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	return writeCharts(r, docs)
}

func extras(f figure) string {
	names := make([]string, 0, len(f.Extra))
	for name := range f.Extra {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "  %.4g %s", f.Extra[name], name)
	}
	return b.String()
}
