package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestKrewManifest checks that the krew manifest names, for each platform
// hack/plugin-dist.sh builds and no other, the archive it writes and the
// program in it.
func TestKrewManifest(t *testing.T) {
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, "hack", "plugin-dist.sh"))
	if err != nil {
		t.Fatal(err)
	}
	built := regexp.MustCompile(`(?m)^platforms="([^"]+)"$`).FindSubmatch(script)
	if built == nil {
		t.Fatal(`hack/plugin-dist.sh sets no platforms="..."`)
	}
	template, err := os.ReadFile(filepath.Join(root, "plugins", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// As the script fills it in: each checksum placeholder by one of its own.
	filled := strings.ReplaceAll(string(template), "{{VERSION}}", "1.2.3")
	filled = regexp.MustCompile(`\{\{SHA256 (\w+) (\w+)\}\}`).ReplaceAllString(filled, "sum-$1-$2")
	if strings.Contains(filled, "{{") {
		t.Errorf("placeholders the script does not fill remain: %s", filled)
	}
	var manifest struct {
		APIVersion, Kind string
		Metadata         struct{ Name string }
		Spec             struct {
			Version, Homepage, ShortDescription, Description string
			Platforms                                        []struct {
				Selector         struct{ MatchLabels map[string]string }
				URI, Sha256, Bin string
			}
		}
	}
	if err := yaml.UnmarshalStrict([]byte(filled), &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Kind != "Plugin" || manifest.Metadata.Name != "seed" || manifest.Spec.Version != "v1.2.3" || manifest.Spec.ShortDescription == "" {
		t.Errorf("manifest %+v, want the Plugin seed of version v1.2.3, described", manifest)
	}
	named := make([]string, 0, len(manifest.Spec.Platforms))
	for _, p := range manifest.Spec.Platforms {
		goos, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		named = append(named, goos+"/"+arch)
		bin := "kubectl-seed"
		if goos == "windows" {
			bin += ".exe"
		}
		archive := fmt.Sprintf("/v1.2.3/kubectl-seed_v1.2.3_%s_%s.tar.gz", goos, arch)
		if !strings.HasSuffix(p.URI, archive) || p.Sha256 != "sum-"+goos+"-"+arch || p.Bin != bin {
			t.Errorf("%s/%s: uri %s, sha256 %s, bin %s; want the archive ...%s, its own checksum, and %s", goos, arch, p.URI, p.Sha256, p.Bin, archive, bin)
		}
	}
	want := strings.Fields(string(built[1]))
	slices.Sort(named)
	slices.Sort(want)
	if !slices.Equal(named, want) {
		t.Errorf("the manifest names %v, the script builds %v", named, want)
	}
}
