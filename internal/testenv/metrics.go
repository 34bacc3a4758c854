package testenv

import (
	"fmt"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// ReconcileErrors is how many reconciles of the named controller in this
// process have returned an error, as its metrics count them.
func ReconcileErrors(controller string) (float64, error) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return 0, fmt.Errorf("gathering the controllers' metrics: %w", err)
	}
	for _, family := range families {
		if family.GetName() != "controller_runtime_reconcile_errors_total" {
			continue
		}
		for _, metric := range family.GetMetric() {
			for _, label := range metric.GetLabel() {
				if label.GetName() == "controller" && label.GetValue() == controller {
					return metric.GetCounter().GetValue(), nil
				}
			}
		}
	}
	return 0, nil
}
