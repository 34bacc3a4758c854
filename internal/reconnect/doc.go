// Package reconnect makes the manager's informers find the API server
// again as soon as it answers after an outage.
//
// client-go's reflector backs off after every list or watch that fails,
// doubling its wait up to 30 s with as much jitter again, so an informer
// whose API server was gone for 20 s may wait most of another minute
// before it lists again, and every reconcile that needs its cache waits
// with it. kube-controller-manager leaves that behind by exiting when it
// loses its lease; the operator's standby replicas lose none. Here a list
// or watch that cannot reach the API server is tried again in the call
// itself, every Period, so the reflector never sees it fail and never
// backs off for it. What the API server answers (a 429, a 403, a 410) goes
// to the reflector as before, with its back-off.
package reconnect
