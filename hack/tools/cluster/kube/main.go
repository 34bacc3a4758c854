// Command kube is the Kubernetes components of the local cluster but the API
// server (../kube-apiserver) in one program, so that they are linked once
// rather than four times: kube-controller-manager, kube-scheduler, kubelet
// and kube-proxy. It runs the component its name says (a link named
// kubelet runs the kubelet), or the one its first argument names
// (`kube kubelet --config=...`).
//
// Only the component that runs is constructed: a component's constructor
// may set up the process's one signal handler, and a second construction
// would panic.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	_ "time/tzdata" // CronJob time zones, as the controller manager embeds them.

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

var components = map[string]func() *cobra.Command{
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kubelet":                 func() *cobra.Command { return kubelet.NewKubeletCommand(context.Background()) },
	"kube-proxy":              proxy.NewProxyCommand,
}

func main() {
	if _, named := components[filepath.Base(os.Args[0])]; !named && len(os.Args) > 1 {
		// Run as `kube COMPONENT FLAG...`, the program is COMPONENT from
		// here on, as a link of that name would be: client-go names the
		// program in its user agent after os.Args[0], and the API server
		// names the field manager of its writes after that. A cluster's
		// kube-controller-manager and kube-scheduler are known by those
		// names, which operators (this one among them) tell from others.
		os.Args = os.Args[1:]
	}
	command, ok := components[filepath.Base(os.Args[0])]
	if !ok {
		names := make([]string, 0, len(components))
		for name := range components {
			names = append(names, name)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "usage: kube COMPONENT [FLAG...], or run it as a link named COMPONENT; COMPONENT is one of %v\n", names)
		os.Exit(2)
	}
	os.Exit(cli.Run(command()))
}
