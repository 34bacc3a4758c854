package main

import (
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

func TestSemverMode(t *testing.T) {
	r := func(version string, channels []string, defaultChannel, skipRange string) release {
		return release{name: "op.v" + version, version: semver.MustParse(version), channels: channels,
			defaultChannel: defaultChannel, skipRange: skipRange}
	}
	both := []string{"candidate", "stable"}
	tests := []struct {
		name     string
		releases []release
		want     graph
	}{{
		name:     "one release",
		releases: []release{r("1.0.0", []string{"stable"}, "stable", "")},
		want: graph{defaultChannel: "stable", channels: map[string][]declcfg.ChannelEntry{
			"stable": {{Name: "op.v1.0.0"}},
		}},
	}, {
		name: "each replaces the next lower version of its channel, whatever the order given",
		releases: []release{
			r("0.2.1", both, "stable", ">=0.1.0 <0.2.1"),
			r("0.1.0", []string{"candidate"}, "candidate", ""),
			r("0.2.0", both, "stable", ">=0.1.0 <0.2.0"),
		},
		want: graph{defaultChannel: "stable", channels: map[string][]declcfg.ChannelEntry{
			"candidate": {
				{Name: "op.v0.1.0"},
				{Name: "op.v0.2.0", Replaces: "op.v0.1.0", SkipRange: ">=0.1.0 <0.2.0"},
				{Name: "op.v0.2.1", Replaces: "op.v0.2.0", SkipRange: ">=0.1.0 <0.2.1"},
			},
			"stable": {
				{Name: "op.v0.2.0", SkipRange: ">=0.1.0 <0.2.0"},
				{Name: "op.v0.2.1", Replaces: "op.v0.2.0", SkipRange: ">=0.1.0 <0.2.1"},
			},
		}},
	}, {
		name: "the newest bundle's default channel wins",
		releases: []release{
			r("2.0.0", []string{"fast"}, "fast", ""),
			r("1.0.0", []string{"stable"}, "stable", ""),
		},
		want: graph{defaultChannel: "fast", channels: map[string][]declcfg.ChannelEntry{
			"fast":   {{Name: "op.v2.0.0"}},
			"stable": {{Name: "op.v1.0.0"}},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := tt.want.diff(semverMode(tt.releases)); d != "" {
				t.Errorf("semverMode:\n%s", d)
			}
		})
	}
}

func TestGraphDiff(t *testing.T) {
	catalog := graph{defaultChannel: "stable", channels: map[string][]declcfg.ChannelEntry{
		"stable": {{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}},
	}}
	tests := []struct {
		name string
		got  graph
		want []string
	}{{
		name: "the same graph",
		got:  catalog,
	}, {
		name: "a missing edge, another default channel and an extra channel",
		got: graph{defaultChannel: "fast", channels: map[string][]declcfg.ChannelEntry{
			"stable": {{Name: "op.v1.0.0"}, {Name: "op.v1.1.0"}},
			"fast":   {{Name: "op.v1.1.0"}},
		}},
		want: []string{`default channel: "fast", want "stable"`, "channel fast:", "channel stable:"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := catalog.diff(tt.got)
			lines := strings.Split(d, "\n")
			if d == "" {
				lines = nil
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("diff:\n%s\nwant %d lines", d, len(tt.want))
			}
			for i, prefix := range tt.want {
				if !strings.HasPrefix(lines[i], prefix) {
					t.Errorf("line %d = %q, want it to start with %q", i, lines[i], prefix)
				}
			}
		})
	}
}

func TestSkipRanges(t *testing.T) {
	channel := func(name, skipRange string) declcfg.Channel {
		return declcfg.Channel{Package: "op", Name: name, Entries: []declcfg.ChannelEntry{{Name: "op.v1.0.0", SkipRange: skipRange}}}
	}
	cfg := &declcfg.DeclarativeConfig{Channels: []declcfg.Channel{channel("candidate", "<1.0.0"), channel("stable", "<1.0.0")}}
	ranges, err := skipRanges(cfg, "op")
	if err != nil || ranges["op.v1.0.0"] != "<1.0.0" {
		t.Errorf("one range in both channels: %v, %v", ranges, err)
	}
	cfg.Channels[1] = channel("stable", "<0.9.0")
	if _, err := skipRanges(cfg, "op"); err == nil {
		t.Error("two ranges for one bundle, which a CSV cannot carry, passed")
	}
}
