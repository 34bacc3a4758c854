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

// DashboardQuery is a panel's query as Prometheus can run it, with the
// namespaces regexp for the dashboard's $namespace.
func DashboardQuery(expr, namespaces string) string {
	return strings.ReplaceAll(expr, "$namespace", namespaces)
}
