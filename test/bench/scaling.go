package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// perThousand is a burst's time for each 1,000 custom resources.
func perThousand(seconds float64, n int) float64 {
	return seconds * 1000 / float64(n)
}

// printScaling prints, for a run of several sizes, each kind's time per
// 1,000 custom resources at each size, and its ratio to the smallest
// size's: the operator's, and raw client-go's and the floor's, which say
// how much of a slope is the cluster's own. Where a size ran more than
// once, its figures are the runs' medians.
func printScaling(w io.Writer, runs []sizeResult) error {
	out := &printer{w: w}
	var sizes []int
	for _, run := range runs {
		if !slices.Contains(sizes, run.N) {
			sizes = append(sizes, run.N)
		}
	}
	if len(sizes) < 2 {
		return nil
	}
	slices.Sort(sizes)
	names := make([]string, 0, len(sizes))
	for _, n := range sizes {
		names = append(names, fmt.Sprintf("N=%d", n))
	}
	out.printf("\nseconds per 1,000 resources, %s (each against N=%d's):\n", strings.Join(names, " / "), sizes[0])
	for _, k := range runs[0].Kinds {
		lines := make([]string, 0, len(scalingFigures))
		for _, f := range scalingFigures {
			perSize := make([]float64, 0, len(sizes))
			for _, n := range sizes {
				perSize = append(perSize, medianPerThousand(runs, k.Kind, n, f.of))
			}
			lines = append(lines, f.name+" "+scaled(perSize))
		}
		out.printf("  %s: %s\n", k.Kind, strings.Join(lines, "; "))
	}
	return out.err
}

// medianPerThousand is the median, over the runs of size n, of a kind's
// figure per 1,000 resources; zero where no run of that size has the kind.
func medianPerThousand(runs []sizeResult, kind string, n int, of func(kindResult) float64) float64 {
	var values []float64
	for _, run := range runs {
		if k, ok := run.kind(kind); run.N == n && ok {
			values = append(values, perThousand(of(k), n))
		}
	}
	return median(values)
}

// scalingFigures are the times printScaling compares across sizes.
var scalingFigures = []figure{
	{"operator", func(k kindResult) float64 { return k.Operator.Seconds }},
	{"raw", func(k kindResult) float64 { return k.Baseline.Seconds }},
	{"raw+CR", func(k kindResult) float64 { return k.Floor.Seconds }},
}

// scaled prints values, a figure per size, each after the first with its
// ratio to the first.
func scaled(values []float64) string {
	parts := make([]string, 0, len(values))
	for i, v := range values {
		if i == 0 || values[0] == 0 {
			parts = append(parts, fmt.Sprintf("%.1f", v))
			continue
		}
		parts = append(parts, fmt.Sprintf("%.1f (x%.2f)", v, v/values[0]))
	}
	return strings.Join(parts, " / ")
}
