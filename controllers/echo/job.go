package echo

import (
	batchv1ac "k8s.io/client-go/applyconfigurations/batch/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// echoKind is the app.kubernetes.io/name of an Echo's Job and pod.
	echoKind = "echo"

	// legacyResultFinalizer is the finalizer releases up to 0.3.1 gave
	// every Echo's Job for its whole life, so that a namespace with an Echo
	// could not be deleted without the operator. The operator removes it:
	// an apply no longer sets it, and a Job being deleted, or whose Echo is
	// gone, is released.
	legacyResultFinalizer = "seed.example.com/echo-result"
)

var echoGVK = seedv1alpha1.GroupVersion.WithKind("Echo")

// desiredJob is the Job that prints an Echo's message, in the Echo's
// namespace. Its TTL is set only once the Echo has recorded how the Job
// ended: the TTL controller cannot delete it unseen, which would run it
// again. The TTL counts from the Job's end all the same.
func desiredJob(e *seedv1alpha1.Echo) *batchv1ac.JobApplyConfiguration {
	spec := batchv1ac.JobSpec().
		WithTemplate(podTemplate(echoKind, e.Name, e.Spec.Image, e.Spec.Message))
	if e.Spec.BackoffLimit != nil {
		spec.WithBackoffLimit(*e.Spec.BackoffLimit)
	}
	if e.Spec.TTLSecondsAfterFinished != nil && finished(e) {
		spec.WithTTLSecondsAfterFinished(*e.Spec.TTLSecondsAfterFinished)
	}
	return batchv1ac.Job(e.Name, e.Namespace).
		WithLabels(kube.Labels(echoKind, e.Name)).
		WithOwnerReferences(kube.ControllerReference(e, echoGVK)).
		WithSpec(spec)
}
