// Command kube-apiserver is the Kubernetes API server, as its release
// builds it. It is a program of its own, apart from the other components
// (../kube), because envtest runs it too: `make test` then compiles the API
// server and nothing else of Kubernetes, and the local cluster reuses every
// package it compiled.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as the release binary embeds them.

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	// Whatever the file is named (here it carries its version), the API
	// server goes by its own name: client-go names its user agent, and so
	// the field manager of the API server's own writes, after os.Args[0].
	os.Args[0] = "kube-apiserver"
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
