//go:build tools

// Package tools pins the local cluster's programs that are built from their
// own main packages: etcd (envtest's too), kwok, which plays the fake nodes'
// kubelets, the local-path-provisioner, metrics-server, the CSI sidecars,
// kustomize (whose libraries kubectl compiles too), and Prometheus, which
// make monitoring-up runs.
// Built from this module, they compile against the Kubernetes libraries
// the control plane has compiled already.
package tools

import (
	_ "github.com/kubernetes-csi/external-provisioner/v6/cmd/csi-provisioner"
	_ "github.com/kubernetes-csi/external-resizer/v2/cmd/csi-resizer"
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter"
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller"
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/rancher/local-path-provisioner"
	_ "go.etcd.io/etcd/server/v3"
	_ "sigs.k8s.io/kustomize/kustomize/v5"
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
