// Package apply makes the objects a custom resource owns match what its
// controller built, with server-side apply under the operator's one field
// manager, and records on the resource an event for each change.
//
// It owns: the Applier, which creates an object only where no object of
// its name exists and writes only objects its owner controls
// (NameConflictError, and a watch of the object in the way until it goes
// or changes hands); UpToDate and the digest of the applied fields, which
// spare an apply that would change nothing; drift repair, which removes
// the spec fields other managers added; and the summaries of the API
// server's refusals that reach conditions and events.
//
// It does not decide what the manager's cache keeps (package cached reads
// the digest from here, never the reverse), and it builds no object: the
// controllers do.
package apply
