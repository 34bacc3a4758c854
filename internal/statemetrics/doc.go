// Package statemetrics exposes the state of every resource the operator
// runs as Prometheus metrics: whether it is Ready and why, how far its
// status lags its spec, and what each kind has of its own (a WebServer's
// replicas and rollout, an Echo's phase and run time, a ScheduledEcho's
// last runs, an ImmortalContainer's pod starts and back-off, a
// DemoVolume's size and phase).
//
// The series are built from the manager's cache at each scrape, as
// kube-state-metrics builds them from its informers: a resource's series
// are there exactly while the resource is, and the reconciles pay nothing
// for them. Only the replica that leads serves them (Collector), so that a
// query over every replica's series counts each resource once.
package statemetrics
