// Package rules checks the operator's alerting and recording rules
// (config/prometheus/rules.yaml) with promtool: that Prometheus takes them,
// and that each alert fires, stays quiet and waits out its `for` window as
// testdata/rules_test.yaml says; that each alert has a severity, a
// summary, a description and a runbook in docs/runbooks; and that every
// query of the Grafana dashboard (config/grafana) parses.
package rules

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

const (
	rulesFile   = "../../config/prometheus/rules.yaml"
	testsFile   = "testdata/rules_test.yaml"
	runbooksDir = "../../docs/runbooks"
	runbookURL  = "https://github.com/seed-operators/seed-operator/blob/main/docs/runbooks/"
)

// A runbook says what the alert means, how to confirm it, and how to fix it.
var runbookSections = []string{"## Meaning", "## Confirm", "## Fix"}

var severities = []string{"critical", "warning", "info"}

type rule struct {
	Alert       string            `json:"alert"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type prometheusRule struct {
	Kind string `json:"kind"`
	Spec struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []rule `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

type unitTests struct {
	Tests []struct {
		Name          string `json:"name"`
		AlertRuleTest []struct {
			Alertname string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

func readYAML(t *testing.T, path string, into any) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return data
}

func alerts(t *testing.T) []rule {
	t.Helper()
	var pr prometheusRule
	readYAML(t, rulesFile, &pr)
	var out []rule
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no alerts", rulesFile)
	}
	return out
}

// TestPromtool checks the rules and runs their unit tests with promtool,
// which make test builds and names in PROMTOOL.
func TestPromtool(t *testing.T) {
	promtool := promtoolPath(t)
	var pr struct {
		Kind string         `json:"kind"`
		Spec map[string]any `json:"spec"`
	}
	readYAML(t, rulesFile, &pr)
	if pr.Kind != "PrometheusRule" {
		t.Fatalf("%s is a %q, want a PrometheusRule", rulesFile, pr.Kind)
	}
	// promtool reads a plain rule file: the PrometheusRule's spec, as it is,
	// beside the unit tests that name it.
	dir := t.TempDir()
	groups, err := yaml.Marshal(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(testsFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"rules.yaml": groups, "rules_test.yaml": tests} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runPromtool(t, promtool, dir, "check", "rules", "rules.yaml")
	runPromtool(t, promtool, dir, "test", "rules", "rules_test.yaml")
}

// promtoolPath is promtool, which make test builds and names in PROMTOOL.
func promtoolPath(t *testing.T) string {
	t.Helper()
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		t.Fatal("PROMTOOL must name promtool: run make test")
	}
	return promtool
}

func runPromtool(t *testing.T, promtool, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), promtool, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestDashboardQueriesParse checks that every panel of the dashboard has
// a title, a description and queries, and that each query parses as
// Prometheus parses it: promtool checks them as recording rules.
func TestDashboardQueriesParse(t *testing.T) {
	promtool := promtoolPath(t)
	d, err := testenv.ReadDashboard()
	if err != nil {
		t.Fatal(err)
	}
	var rules []map[string]string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Title == "" || p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %d %q: a panel needs a title, a description and a query", p.ID, p.Title)
		}
		for _, target := range p.Targets {
			rules = append(rules, map[string]string{
				"record": fmt.Sprintf("dashboard:panel_%d_%s", p.ID, target.RefID),
				"expr":   testenv.DashboardQuery(target.Expr, ".*"),
			})
		}
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no queries", testenv.DashboardFile())
	}
	data, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dashboard.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	runPromtool(t, promtool, dir, "check", "rules", "dashboard.yaml")
}

// TestEveryAlertTested checks that the unit tests see each alert fire and
// stay quiet, and name no alert that does not exist.
func TestEveryAlertTested(t *testing.T) {
	var ut unitTests
	readYAML(t, testsFile, &ut)
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, test := range ut.Tests {
		for _, a := range test.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	names := map[string]bool{}
	for _, a := range alerts(t) {
		names[a.Alert] = true
		if !fires[a.Alert] {
			t.Errorf("%s: no unit test expects it to fire", a.Alert)
		}
		if !quiet[a.Alert] {
			t.Errorf("%s: no unit test expects it not to fire", a.Alert)
		}
	}
	for name := range fires {
		if !names[name] {
			t.Errorf("the unit tests expect %s, which is no alert", name)
		}
	}
}

// TestAlertsHaveRunbooks checks each alert's labels and annotations, and
// that its runbook is in the repository with the sections a person needs.
func TestAlertsHaveRunbooks(t *testing.T) {
	for _, a := range alerts(t) {
		if !slices.Contains(severities, a.Labels["severity"]) {
			t.Errorf("%s: severity %q, want one of %v", a.Alert, a.Labels["severity"], severities)
		}
		for _, annotation := range []string{"summary", "description"} {
			if a.Annotations[annotation] == "" {
				t.Errorf("%s: no %s", a.Alert, annotation)
			}
		}
		if want := runbookURL + a.Alert + ".md"; a.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", a.Alert, a.Annotations["runbook_url"], want)
		}
		runbook, err := os.ReadFile(filepath.Join(runbooksDir, a.Alert+".md"))
		if err != nil {
			t.Errorf("%s: %v", a.Alert, err)
			continue
		}
		for _, section := range runbookSections {
			if !strings.Contains(string(runbook), "\n"+section+"\n") {
				t.Errorf("%s: its runbook has no %q section", a.Alert, section)
			}
		}
	}
}
