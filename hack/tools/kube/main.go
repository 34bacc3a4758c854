// Command kube is the Kubernetes control plane and node components in one
// program, so that they are compiled and linked once rather than five
// times: kube-apiserver, kube-controller-manager, kube-scheduler, kubelet
// and kube-proxy. It runs the component its name says (a link named
// kubelet runs the kubelet), or the one its first argument names
// (`kube kubelet --config=...`).
//
// Only the component that runs is constructed: the API server's
// constructor sets up the process's one signal handler, and a second
// construction would panic.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	_ "time/tzdata" // CronJob time zones, as the API server and controller manager embed them.

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

var components = map[string]func() *cobra.Command{
	"kube-apiserver":          apiserver.NewAPIServerCommand,
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kubelet":                 func() *cobra.Command { return kubelet.NewKubeletCommand(context.Background()) },
	"kube-proxy":              proxy.NewProxyCommand,
}

func main() {
	command, ok := components[filepath.Base(os.Args[0])]
	if !ok && len(os.Args) > 1 {
		if command, ok = components[os.Args[1]]; ok {
			cmd := command()
			// Not nil, even when empty: cobra reads os.Args for nil.
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		}
	}
	if !ok {
		names := make([]string, 0, len(components))
		for name := range components {
			names = append(names, name)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "usage: %s COMPONENT [FLAG...], or run it as a link named COMPONENT; COMPONENT is one of %v\n",
			filepath.Base(os.Args[0]), names)
		os.Exit(2)
	}
	os.Exit(cli.Run(command()))
}
