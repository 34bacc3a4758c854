package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"
)

// TestK9sPlugins checks that each k9s plugin runs a command of kubectl
// seed with flags it takes, in every view it names.
func TestK9sPlugins(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "plugins", "k9s-seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Plugins map[string]struct {
			ShortCut, Description, Command string
			Scopes, Args                   []string
			Background, Confirm            bool
		}
	}
	if err := yaml.UnmarshalStrict(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Plugins) != 3 {
		t.Errorf("%d plugins, want status, backup and report", len(file.Plugins))
	}
	views := map[string]bool{"namespaces": true}
	for _, k := range kinds {
		views[k.plural] = true
	}
	expand := strings.NewReplacer("$NAMESPACE", "shop", "$NAME", "data", "$CONTEXT", "kind-seed")
	for name, p := range file.Plugins {
		if p.ShortCut == "" || p.Description == "" || p.Command != "bash" || len(p.Args) != 2 || p.Args[0] != "-c" {
			t.Errorf("%s: %+v, want a shortcut, a description, and bash -c", name, p)
			continue
		}
		for _, scope := range p.Scopes {
			if !views[scope] {
				t.Errorf("%s: scope %s is none of the operator's kinds, nor namespaces", name, scope)
			}
		}
		line, _, _ := strings.Cut(expand.Replace(p.Args[1]), "|")
		args, found := strings.CutPrefix(strings.TrimSpace(line), "kubectl seed ")
		if !found {
			t.Errorf("%s runs %q, not kubectl seed", name, line)
			continue
		}
		root := NewCommand(genericiooptions.NewTestIOStreamsDiscard())
		cmd, rest, err := root.Find(strings.Fields(args))
		if err == nil {
			err = cmd.ParseFlags(rest)
		}
		if err == nil && cmd.Args != nil {
			err = cmd.Args(cmd, cmd.Flags().Args())
		}
		if err != nil || cmd == root {
			t.Errorf("%s: kubectl seed %s: %v", name, args, err)
		}
	}
}
