package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// controlPlane are the local cluster's processes that do the work of a
// burst, with or without the operator: on two cores they share the CPU
// with it, so the CPU they spend per burst is what the operator costs the
// cluster.
var controlPlane = []string{"kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler", "kwok"}

// controlPlaneCPU is the CPU time, in seconds, each control-plane process
// of the cluster has used so far, found by the pid files the cluster
// keeps in pidDir. A pid file may hold a supervisor's pid, which runs the
// process as its child and starts it again when it exits, as the kubelet
// runs a static pod: its whole tree counts.
func controlPlaneCPU(pidDir string) (map[string]float64, error) {
	processes, err := listProcesses()
	if err != nil {
		return nil, err
	}
	used := make(map[string]float64, len(controlPlane))
	for _, name := range controlPlane {
		data, err := os.ReadFile(filepath.Join(pidDir, name))
		if err != nil {
			return nil, fmt.Errorf("the local cluster's %s: %w", name, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			return nil, fmt.Errorf("the pid file of %s: %w", name, err)
		}
		if used[name], err = processes.treeCPUSeconds(pid); err != nil {
			return nil, fmt.Errorf("the local cluster's %s: %w", name, err)
		}
	}
	return used, nil
}

// cpuSpent is the CPU time each process used between two readings.
func cpuSpent(before, after map[string]float64) map[string]float64 {
	spent := make(map[string]float64, len(after))
	for name, seconds := range after {
		spent[name] = seconds - before[name]
	}
	return spent
}

// cpuSeconds is the CPU time, user and system, a process has used.
func cpuSeconds(pid int) (float64, error) {
	st, err := readStat(pid)
	return st.seconds, err
}

// processes are the host's processes, as the children of each: one
// listing of /proc serves every tree read from it.
type processes map[int][]int

// listProcesses lists the host's processes by parent.
func listProcesses() (processes, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	children := processes{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(child); err == nil {
			children[st.parent] = append(children[st.parent], child)
		}
	}
	return children, nil
}

// treeCPUSeconds is the CPU time a process and its descendants have used:
// those alive, and those that ended and were waited for. Each is read
// after the listing: one that ended since counts in its parent's waited
// time, or not yet, and either way not twice.
func (p processes) treeCPUSeconds(pid int) (float64, error) {
	root, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	seconds := root.seconds + root.waited
	queue := slices.Clone(p[pid])
	for len(queue) > 0 {
		next := queue[0]
		queue = append(queue[1:], p[next]...)
		if st, err := readStat(next); err == nil {
			seconds += st.seconds + st.waited
		}
	}
	return seconds, nil
}

// stat is what /proc/PID/stat says of a process's CPU time.
type stat struct {
	parent int
	// seconds is its own user and system time; waited is its ended
	// children's, those it waited for.
	seconds, waited float64
}

func readStat(pid int) (stat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, err
	}
	// The fields after the command name, which is in parentheses: ppid is
	// the 2nd of them, utime, stime, cutime and cstime the 12th to 15th.
	_, after, _ := strings.Cut(string(data), ") ")
	fields := strings.Fields(after)
	if len(fields) < 15 {
		return stat{}, fmt.Errorf("/proc/%d/stat has too few fields", pid)
	}
	var ticks [4]float64
	for i := range ticks {
		if ticks[i], err = strconv.ParseFloat(fields[11+i], 64); err != nil {
			return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
	}
	parent, err := strconv.Atoi(fields[1])
	if err != nil {
		return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return stat{parent: parent, seconds: (ticks[0] + ticks[1]) / clockTicksPerSec, waited: (ticks[2] + ticks[3]) / clockTicksPerSec}, nil
}
