package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// machine describes where and with what the figures were taken.
type machine struct {
	CPU    string
	Cores  int
	Memory string
	OS     string
	Go     string
	Procs  int
	Date   string
	// Versions name the measured modules: "github.com/cloudwego/eino v0.7.36".
	Versions []string
	// Commit is offshoot's commit, when the source is a git checkout.
	Commit string
}

// peers are the modules whose versions the report names.
var peers = []string{
	"github.com/cloudwego/eino",
	"github.com/bytedance/sonic",
	"github.com/firebase/genkit/go",
	"github.com/tmc/langchaingo",
}

func describeMachine(procs int, repo string) machine {
	m := machine{
		CPU:    cpuModel(),
		Cores:  runtime.NumCPU(),
		Memory: memTotal(),
		OS:     runtime.GOOS + "/" + runtime.GOARCH,
		Go:     runtime.Version(),
		Procs:  procs,
		Date:   time.Now().UTC().Format("2006-01-02"),
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, p := range peers {
			for _, d := range info.Deps {
				if d.Path == p {
					m.Versions = append(m.Versions, d.Path+" "+d.Version)
				}
			}
		}
	}
	if out, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
	}
	return m
}

// cpuModel reads the processor's name from /proc/cpuinfo ("" elsewhere).
func cpuModel() string {
	return procField("/proc/cpuinfo", "model name")
}

// memTotal reads the machine's memory from /proc/meminfo, in GiB.
func memTotal() string {
	v := procField("/proc/meminfo", "MemTotal")
	kb, err := strconv.ParseFloat(strings.TrimSuffix(v, " kB"), 64)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%.0f GiB", kb/(1<<20))
}

// procField returns the value of the first "name: value" line of a /proc
// file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
