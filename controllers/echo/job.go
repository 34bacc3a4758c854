package echo

import (
	batchv1ac "k8s.io/client-go/applyconfigurations/batch/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// echoKind is the app.kubernetes.io/name of an Echo's Job and pod.
	echoKind = "echo"

	// resultFinalizer keeps an Echo's Job, and with it the result of the
	// run, until the Echo has recorded that result. Without it, a Job that
	// its TTL deletes as soon as it finishes could be gone before the
	// operator sees how it ended, and the message would be printed again.
	resultFinalizer = "seed.example.com/echo-result"
)

var echoGVK = seedv1alpha1.GroupVersion.WithKind("Echo")

// desiredJob is the Job that prints an Echo's message, in the Echo's
// namespace.
func desiredJob(e *seedv1alpha1.Echo) *batchv1ac.JobApplyConfiguration {
	spec := batchv1ac.JobSpec().
		WithTemplate(podTemplate(echoKind, e.Name, e.Spec.Image, e.Spec.Message))
	if e.Spec.BackoffLimit != nil {
		spec.WithBackoffLimit(*e.Spec.BackoffLimit)
	}
	if e.Spec.TTLSecondsAfterFinished != nil {
		spec.WithTTLSecondsAfterFinished(*e.Spec.TTLSecondsAfterFinished)
	}
	return batchv1ac.Job(e.Name, e.Namespace).
		WithLabels(kube.Labels(echoKind, e.Name)).
		WithFinalizers(resultFinalizer).
		WithOwnerReferences(kube.ControllerReference(e, echoGVK)).
		WithSpec(spec)
}
