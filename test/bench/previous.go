package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// committedRun is a run the repository keeps, by its file's name.
type committedRun struct {
	file   string
	report *report
}

// loadRuns reads the runs in dir, oldest first.
func loadRuns(dir string) ([]committedRun, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	runs := make([]committedRun, 0, len(paths))
	for _, path := range paths {
		r, err := load(path)
		if err != nil {
			return nil, err
		}
		runs = append(runs, committedRun{file: filepath.Base(path), report: r})
	}
	// RFC 3339 times in UTC sort as text.
	slices.SortStableFunc(runs, func(a, b committedRun) int { return strings.Compare(a.report.Date, b.report.Date) })
	return runs, nil
}

// previousOf is the newest of runs with figures of kind at size n, and
// those figures: one for each time that run measured the size.
func previousOf(runs []committedRun, n int, kind string) (committedRun, []kindResult, bool) {
	for _, run := range slices.Backward(runs) {
		var found []kindResult
		for _, size := range run.report.Runs {
			if size.N != n {
				continue
			}
			if k, ok := size.kind(kind); ok {
				found = append(found, k)
			}
		}
		if len(found) > 0 {
			return run, found, true
		}
	}
	return committedRun{}, nil, false
}

// printPrevious prints, for each kind of s, its figures beside those of
// the newest committed run that has the kind at the same size (their
// median, where that run measured the size more than once), and the
// ratio of each (new over old: below 1 is better).
func (s sizeResult) printPrevious(w io.Writer, runs []committedRun) error {
	out := &printer{w: w}
	for _, k := range s.Kinds {
		run, olds, ok := previousOf(runs, s.N, k.Kind)
		if !ok {
			out.printf("%s: no committed run of N=%d to compare with\n", k.Kind, s.N)
			continue
		}
		figures := make([]string, 0, len(kindFigures))
		for _, f := range kindFigures {
			values := make([]float64, 0, len(olds))
			for _, old := range olds {
				values = append(values, f.of(old))
			}
			before, now := median(values), f.of(k)
			ratio := "-"
			if before != 0 {
				ratio = fmt.Sprintf("x%.2f", now/before)
			}
			figures = append(figures, fmt.Sprintf("%s %.2f -> %.2f (%s)", f.name, before, now, ratio))
		}
		of := ""
		if len(olds) > 1 {
			of = fmt.Sprintf(", the median of %d runs", len(olds))
		}
		out.printf("%s, against %s (%s, %s%s): %s\n", k.Kind, run.file, run.report.Commit, run.report.Date, of, strings.Join(figures, ", "))
	}
	return out.err
}
