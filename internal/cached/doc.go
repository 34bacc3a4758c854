// Package cached decides what the manager's cache keeps of the objects the
// operator owns: only those it labels as managed, of the kinds each
// controller reads (Owned), and of each object its metadata, its status
// (trimmed to what the one controller reading it needs) and, in place of a
// spec no controller reads, the digest of what the operator applied, which
// is all package apply compares.
//
// A controller declares what it reads in its Owned entries; a status
// function that reads a field the cache drops reads zeros, which the
// controllers' status tests catch by computing each status from the
// objects as cached too. The package imports apply for the digest; apply
// never imports it.
package cached
