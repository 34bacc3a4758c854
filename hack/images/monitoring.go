package main

import "path/filepath"

// monitoringSet names the images of prometheus-operator and Prometheus.
const monitoringSet = "monitoring"

// monitoringImages run the local cluster's monitoring: prometheus-operator
// and its config reloader, and Prometheus, all built here. Each image's
// entrypoint is its program, as upstream's: prometheus-operator gives
// Prometheus' container its arguments only.
func monitoringImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{
		"MONITORING_DIR": in.monitoringDir, "PROMETHEUS_OPERATOR_VERSION": in.prometheusOperatorVersion,
		"PROMETHEUS": in.prometheus, "PROMETHEUS_VERSION": in.prometheusVersion,
	}); err != nil {
		return nil, err
	}
	operator := func(image, binary string) spec {
		return program("seed-monitoring/"+image+":"+in.prometheusOperatorVersion,
			filepath.Join(in.monitoringDir, binary), "/bin/"+binary)
	}
	prometheus := program("seed-monitoring/prometheus:"+in.prometheusVersion, in.prometheus, "/bin/prometheus")
	// Where prometheus-operator mounts the volume Prometheus writes its
	// data in, as the upstream image lays it out.
	prometheus.config.WorkingDir = "/prometheus"
	return map[string]spec{
		"prometheus-operator":        operator("prometheus-operator", "operator"),
		"prometheus-config-reloader": operator("prometheus-config-reloader", "prometheus-config-reloader"),
		"prometheus":                 prometheus,
	}, nil
}
