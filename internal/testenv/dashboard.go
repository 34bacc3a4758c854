package testenv

import (
	"path/filepath"
	"strings"
)

// Dashboard is the Grafana dashboard config/grafana ships, as far as the
// tests read it: its panels and their queries.
type Dashboard struct {
	Panels []struct {
		ID          int    `json:"id"`
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Targets     []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// DashboardFile is the dashboard's file.
func DashboardFile() string {
	return filepath.Join(ProjectRoot(), "config", "grafana", "seed-operator-dashboard.json")
}

// ReadDashboard reads the dashboard.
func ReadDashboard() (Dashboard, error) {
	var d Dashboard
	return d, ReadYAML(DashboardFile(), &d)
}

// dashboardVariables are the dashboard's variables, each with a value that
// stands for any of its own in a query.
var dashboardVariables = strings.NewReplacer("$namespace", ".*")

// DashboardQuery is a panel's query as Prometheus can run it: the
// dashboard's variables stand for any of their values.
func DashboardQuery(expr string) string {
	return dashboardVariables.Replace(expr)
}
