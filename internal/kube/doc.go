// Package kube holds the mechanics every seed-operator controller shares:
// the labels and owner reference of owned objects, server-side apply with
// change detection and events, which never writes an object the owner does
// not control (and watches such an object until it is out of the way), and
// condition setters. A controller that needs one of these calls it here
// rather than writing its own.
package kube
