package kube

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IgnoreRefused returns nil when every failure in err is the API server
// refusing an object as invalid (422), or refusing to create it in a
// namespace being deleted, and err otherwise. A reconciler returns what it
// gives for the failures of applying the objects it built from the spec:
// the same request would be refused again, so retrying with back-off only
// fills the log, until the spec changes or the refused object's state does,
// and either brings a reconcile of its own; a namespace being deleted takes
// the owner with it. The status still reports err, and the apply a warning
// event unless the namespace is being deleted (it would refuse the event).
func IgnoreRefused(err error) error {
	if err == nil || refused(err) {
		return nil
	}
	return err
}

// refused tells whether err, and each error joined in it, is an Invalid
// answer from the API server, or the namespace lifecycle admission's
// refusal to create an object in a namespace being deleted.
func refused(err error) bool {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		for _, joined := range e.Unwrap() {
			if !refused(joined) {
				return false
			}
		}
		return true
	case apierrors.APIStatus:
		return e.Status().Reason == metav1.StatusReasonInvalid || namespaceTerminating(err)
	case interface{ Unwrap() error }:
		return refused(e.Unwrap())
	}
	return false
}

// namespaceTerminating tells whether err is the namespace lifecycle
// admission's refusal to create an object in a namespace being deleted.
func namespaceTerminating(err error) bool {
	return apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}
