package v1alpha1

// Condition types and reasons shared by every kind. Kind-specific ones live
// beside the kind's type.
const (
	// ConditionReady is true when everything the resource asked for is in
	// place and working. Every kind reports it, so `kubectl wait
	// --for=condition=Ready` works the same way for all of them.
	ConditionReady = "Ready"

	// ReasonReconcileFailed means the operator could not create or update an
	// owned object; the message carries the API server's answer.
	ReasonReconcileFailed = "ReconcileFailed"

	// ReasonNameConflict means an object of the name the resource would give
	// one of its objects exists and is not the resource's. The operator
	// leaves that object as it is; the message names it.
	ReasonNameConflict = "NameConflict"
)
