//go:build tool_sources

package tools

import (
	"os/exec"
	"strings"
	"testing"
)

// What every program the Makefile builds compiles, package by package: the
// go command lists the packages each module builds, which needs every
// tool's sources, gigabytes a fresh clone's make test would download for
// programs it never builds. make test-hack, which CI runs, builds this file
// (tag tool_sources); make test checks the go.mod files' Kubernetes
// libraries.
//
// Every module must agree with the operator and the local cluster on every
// module both compile, not only on the Kubernetes libraries: a package
// compiled against another golang.org/x/net, say, is compiled again, and so
// is everything that imports it.
func TestModulesResolveTheLibrariesTheOperatorDoes(t *testing.T) {
	resolved := map[string]map[string]string{}
	for _, dir := range modules(t) {
		resolved[dir] = resolve(t, dir)
	}
	expectShared(t, resolved, "resolves")
}

// resolve lists the versions of the modules that the packages a module
// builds (its own and their tests, and the programs its tools.go pins,
// without theirs) are compiled from.
func resolve(t *testing.T, dir string) map[string]string {
	t.Helper()
	// The programs tools.go pins are not importable: each is listed on its
	// own, as it is built.
	pinned := goList(t, dir, "-e", "-tags="+buildTags(t)+",tools", "-f", `{{if eq .Name "tools"}}{{join .Imports "\n"}}{{end}}`, "./...")
	const module = "{{with .Module}}{{.Path}} {{.Version}}{{with .Replace}} {{.Version}}{{end}}{{end}}"
	var out strings.Builder
	out.WriteString(goList(t, dir, "-deps", "-test", "-f", module, "./..."))
	for _, program := range strings.Fields(pinned) {
		out.WriteString(goList(t, dir, "-deps", "-f", module, program))
	}
	versions := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue // the module's own packages have no version
		}
		versions[fields[0]] = fields[len(fields)-1]
	}
	if dir == "cluster" && versions["k8s.io/api"] == "" {
		t.Fatalf("the local cluster's programs compile no k8s.io/api: the test reads the wrong packages")
	}
	return versions
}

func goList(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s: %v", strings.Join(args, " "), dir, stderr(err))
	}
	return string(out)
}
