package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// skipRangeAnnotation is where a CSV carries its skip range for catalogs
// built from bundles, as OperatorHub's is.
const skipRangeAnnotation = "olm.skipRange"

// release is what semver-mode reads of one bundle.
type release struct {
	name           string
	version        semver.Version
	channels       []string
	defaultChannel string
	skipRange      string
	skips          []string
}

func releaseOf(b *manifests.Bundle) release {
	return release{
		name:           b.CSV.Name,
		version:        b.CSV.Spec.Version.Version,
		channels:       b.Channels,
		defaultChannel: b.DefaultChannel,
		skipRange:      b.CSV.Annotations[skipRangeAnnotation],
		skips:          b.CSV.Spec.Skips,
	}
}

// graph is a package's update graph: its default channel and each channel's
// entries, sorted by name so that two graphs compare entry by entry.
type graph struct {
	defaultChannel string
	channels       map[string][]declcfg.ChannelEntry
}

// semverMode is the graph the community operators pipeline builds in
// semver-mode: a channel holds every bundle whose annotations name it, each
// replacing the one of the next lower version in that channel; skip ranges
// and skips come from the CSVs, and the default channel from the newest
// bundle.
func semverMode(releases []release) graph {
	sorted := slices.SortedFunc(slices.Values(releases), func(a, b release) int { return a.version.Compare(b.version) })
	g := graph{channels: map[string][]declcfg.ChannelEntry{}}
	for _, r := range sorted {
		for _, ch := range r.channels {
			entry := declcfg.ChannelEntry{Name: r.name, SkipRange: r.skipRange, Skips: r.skips}
			if prev := g.channels[ch]; len(prev) > 0 {
				entry.Replaces = prev[len(prev)-1].Name
			}
			g.channels[ch] = append(g.channels[ch], entry)
		}
		g.defaultChannel = r.defaultChannel
	}
	for _, entries := range g.channels {
		sortEntries(entries)
	}
	return g
}

// catalogGraph is the graph of one package in a file-based catalog.
func catalogGraph(cfg *declcfg.DeclarativeConfig, pkg string) (graph, error) {
	i := slices.IndexFunc(cfg.Packages, func(p declcfg.Package) bool { return p.Name == pkg })
	if i < 0 {
		return graph{}, fmt.Errorf("the catalog has no package %s", pkg)
	}
	g := graph{defaultChannel: cfg.Packages[i].DefaultChannel, channels: map[string][]declcfg.ChannelEntry{}}
	for _, ch := range cfg.Channels {
		if ch.Package == pkg {
			entries := slices.Clone(ch.Entries)
			sortEntries(entries)
			g.channels[ch.Name] = entries
		}
	}
	return g, nil
}

func sortEntries(entries []declcfg.ChannelEntry) {
	slices.SortFunc(entries, func(a, b declcfg.ChannelEntry) int { return cmp.Compare(a.Name, b.Name) })
}

// diff says how got differs from want, one line per difference; empty when
// they are the same graph.
func (want graph) diff(got graph) string {
	var lines []string
	if got.defaultChannel != want.defaultChannel {
		lines = append(lines, fmt.Sprintf("default channel: %q, want %q", got.defaultChannel, want.defaultChannel))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for ch := range want.channels {
			yield(ch)
		}
		for ch := range got.channels {
			if _, ok := want.channels[ch]; !ok {
				yield(ch)
			}
		}
	})
	for _, ch := range names {
		if g, w := formatEntries(got.channels[ch]), formatEntries(want.channels[ch]); g != w {
			lines = append(lines, fmt.Sprintf("channel %s: [%s], want [%s]", ch, g, w))
		}
	}
	return strings.Join(lines, "\n")
}

func formatEntries(entries []declcfg.ChannelEntry) string {
	s := make([]string, 0, len(entries))
	for _, e := range entries {
		s = append(s, fmt.Sprintf("%s replaces=%q skips=%q skipRange=%q", e.Name, e.Replaces, e.Skips, e.SkipRange))
	}
	return strings.Join(s, "; ")
}

// skipRanges is the skip range of every bundle of a package in the catalog.
// semver-mode reads one per bundle, from its CSV: a bundle whose entries in
// two channels have different ranges has no place in it.
func skipRanges(cfg *declcfg.DeclarativeConfig, pkg string) (map[string]string, error) {
	ranges := map[string]string{}
	for _, ch := range cfg.Channels {
		if ch.Package != pkg {
			continue
		}
		for _, e := range ch.Entries {
			if r, seen := ranges[e.Name]; seen && r != e.SkipRange {
				return nil, fmt.Errorf("%s has skip range %q in channel %s and %q in another: a CSV has one", e.Name, e.SkipRange, ch.Name, r)
			}
			ranges[e.Name] = e.SkipRange
		}
	}
	return ranges, nil
}
