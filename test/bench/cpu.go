package main

import (
	"fmt"
	"os"
	"path/filepath"
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
// keeps in pidDir.
func controlPlaneCPU(pidDir string) (map[string]float64, error) {
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
		if used[name], err = cpuSeconds(pid); err != nil {
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
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th of them.
	_, after, _ := strings.Cut(string(stat), ") ")
	fields := strings.Fields(after)
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat has too few fields", pid)
	}
	utime, err := strconv.ParseFloat(fields[11], 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / clockTicksPerSec, err
}
