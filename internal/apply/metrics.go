package apply

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// unknownManager stands for whoever changed or deleted an owned object when
// its managed fields do not say: a deletion, or a field the operator sets,
// which its apply takes back without reading who changed it.
const unknownManager = "unknown"

// The refusals of an apply: the API server's (an invalid object, a
// namespace being deleted) and the operator's own (a name taken).
const (
	refusedInvalid              = string(metav1.StatusReasonInvalid)
	refusedNamespaceTerminating = "NamespaceTerminating"
)

var (
	driftRepairs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seed_drift_repairs_total",
		Help: "Owned objects the operator put back after someone else changed or deleted them, by kind and by the field manager whose change it undid.",
	}, []string{"kind", "field_manager"})
	refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seed_owned_object_refusals_total",
		Help: "Applies of owned objects that were refused, by kind and reason: Invalid, NamespaceTerminating or NameConflict.",
	}, []string{"kind", "reason"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(driftRepairs, refusals)
}

// countRepair counts a drift repair of an object of kind, once for each
// manager whose fields it removed.
func countRepair(kind string, foreign []string) {
	if len(foreign) == 0 {
		foreign = []string{unknownManager}
	}
	for _, manager := range foreign {
		driftRepairs.WithLabelValues(kind, manager).Inc()
	}
}

// countRefusal counts err, the failure of an apply of an object of kind,
// when it is a refusal.
func countRefusal(kind string, err error) {
	if reason := refusalReason(err); reason != "" {
		refusals.WithLabelValues(kind, reason).Inc()
	}
}

// refusalReason names the refusal err is, or is "" when it is none
// (IgnoreRefused would return it).
func refusalReason(err error) string {
	var status apierrors.APIStatus
	switch {
	case err == nil || !every(err, refused):
		return ""
	case IsNameConflict(err):
		return seedv1alpha1.ReasonNameConflict
	case namespaceTerminating(err):
		return refusedNamespaceTerminating
	case errors.As(err, &status) && status.Status().Reason == metav1.StatusReasonInvalid:
		return refusedInvalid
	}
	return ""
}
