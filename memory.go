package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
)

// gcPercent is the garbage collector's target when GOGC does not set one.
// Most of the operator's heap is its cache, which lives as long as the
// process, and Go's default of 100 lets the heap grow by as much again in
// garbage before it collects. With 1,000 WebServers, 50 took the peak RSS
// from 143 MiB to 106-111 for no more CPU than the benchmark's noise; 25
// to 98, with more CPU. Once the cache kept digests in place of specs, 40
// took it from 78.4 MiB to 75.3, for about a tenth more of the operator's
// CPU, itself a tenth of the cluster's in a burst (docs/performance.md).
const gcPercent = 40

// memoryLimitEnv holds the container's memory limit in bytes, which the
// manifests set from the downward API (resourceFieldRef limits.memory).
const memoryLimitEnv = "MEMORY_LIMIT"

// The Go runtime may use this share of the container's memory limit. The
// rest is for what the runtime does not count and the container's memory
// does: the binary's pages (about 30 MiB, which the kernel can drop and
// read again) and the kernel's own for the process.
const memoryLimitPercent = 85

// tuneMemory sets the garbage collector's target and the Go runtime's soft
// memory limit, unless GOGC and GOMEMLIMIT set them, and returns the limit
// in effect (math.MaxInt64 for none). Near the limit the collector runs as
// often as it must to stay under it: a cache grown past what GOGC's target
// leaves room for costs CPU, rather than the container being killed for
// memory and restarted, over and over, to build the same cache again.
func tuneMemory() (int64, error) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		limit, err := goMemoryLimit(os.Getenv(memoryLimitEnv))
		if err != nil {
			return 0, err
		}
		if limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
	return debug.SetMemoryLimit(-1), nil
}

// goMemoryLimit is the Go runtime's share of a container memory limit
// given in bytes, or 0 when none is given.
func goMemoryLimit(containerLimit string) (int64, error) {
	if containerLimit == "" {
		return 0, nil
	}
	bytes, err := strconv.ParseInt(containerLimit, 10, 64)
	if err != nil || bytes <= 0 {
		return 0, fmt.Errorf("%s=%q: want the container's memory limit as a number of bytes", memoryLimitEnv, containerLimit)
	}
	return bytes / 100 * memoryLimitPercent, nil
}

// memoryLimitText is the Go runtime's memory limit as the log says it.
func memoryLimitText(limit int64) string {
	if limit == math.MaxInt64 {
		return "none"
	}
	return fmt.Sprintf("%d bytes", limit)
}
