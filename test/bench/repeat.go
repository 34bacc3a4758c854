package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// median of values, the mean of the middle two for an even count.
func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(values))
	mid := len(sorted) / 2
	if len(sorted)%2 == 0 {
		return (sorted[mid-1] + sorted[mid]) / 2
	}
	return sorted[mid]
}

// printMedians prints, for runs of one size, each kind's figures as the
// median of the runs and their spread, with the peak RSS, and how many
// runs' baselines moved more than driftLimit: each ratio is taken
// within its own run, so a run whose cluster changed under it moves the
// spread, not the others.
func printMedians(w io.Writer, runs []sizeResult) error {
	out := &printer{w: w}
	if len(runs) == 0 {
		return nil
	}
	out.printf("\nN=%d, the median of %d runs [lowest, highest]\n", runs[0].N, len(runs))
	for _, k := range runs[0].Kinds {
		var of []kindResult
		moved := 0
		for _, run := range runs {
			if r, ok := run.kind(k.Kind); ok {
				of = append(of, r)
				if drifted(r.BaselineDrift) {
					moved++
				}
			}
		}
		figures := make([]string, 0, len(kindFigures))
		for _, f := range kindFigures {
			values := make([]float64, 0, len(of))
			for _, r := range of {
				values = append(values, f.of(r))
			}
			figures = append(figures, fmt.Sprintf("%s %.2f [%.2f, %.2f]", f.name, median(values), slices.Min(values), slices.Max(values)))
		}
		out.printf("%s: %s; %d of %d runs' raw baselines more than %.0f%% apart\n",
			k.Kind, strings.Join(figures, ", "), moved, len(of), driftLimit*100)
	}
	rss := make([]float64, 0, len(runs))
	for _, run := range runs {
		rss = append(rss, float64(run.Memory.PeakRSSBytes)/mib)
	}
	out.printf("peak RSS MiB %.1f [%.1f, %.1f]\n", median(rss), slices.Min(rss), slices.Max(rss))
	return out.err
}
