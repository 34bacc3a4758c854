// Command coredns is CoreDNS with only the plugins the local cluster's
// Corefile uses (test/cluster/addons/coredns.yaml): upstream's main compiles
// in every plugin, cloud SDKs included, which costs minutes on a cold build.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/template"
)

// The plugins run in this order, whatever the Corefile's order: upstream's
// (core/dnsserver/zdirectives.go), less the plugins left out.
func init() {
	dnsserver.Directives = []string{"ready", "health", "errors", "loadbalance", "cache", "template", "kubernetes"}
}

func main() {
	coremain.Run()
}
