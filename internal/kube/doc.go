// Package kube holds the small helpers every seed-operator controller
// shares: the labels, field manager and owner reference of owned objects,
// condition setters and the status patch, finalizers, the restricted
// security contexts of the pods it makes, the controllers' retry delays
// and the leader election's timings.
//
// It depends on no other package of the operator. Applying owned objects
// belongs to package apply, and what the manager's cache keeps of them to
// package cached.
package kube
