package cluster

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
)

// The cluster's addresses, all in 198.18.0.0/15, the range set aside for
// network tests (RFC 2544): nothing the cluster runs ever talks to an
// address outside it or loopback.
var (
	testRange = netip.MustParsePrefix("198.18.0.0/15")
	// hostAddress is the host on the real node's bridge: the node's IP, and
	// the address where the API server and the registry listen, so that pods
	// reach them too.
	hostAddress = netip.MustParseAddr("198.18.0.1")
	// realPodSubnet holds the pods of the real node; kwok's fake pods get
	// addresses from kwokPodRange, which is never routed.
	realPodSubnet = netip.MustParsePrefix("198.18.0.0/24")
	kwokPodRange  = netip.MustParsePrefix("198.18.128.0/17")
	serviceRange  = netip.MustParsePrefix("198.19.0.0/16")
	// The first address of the Service range is the kubernetes Service's.
	kubernetesServiceIP = netip.MustParseAddr("198.19.0.1")
	// loopback is where everything listens without a real node, and a name
	// every serving certificate carries, with localhostName.
	loopback     = netip.MustParseAddr("127.0.0.1")
	dnsServiceIP = netip.MustParseAddr("198.19.0.10")
)

const (
	// bridgeName is the real node's pod network bridge.
	bridgeName = "seed0"
	// realNodeName is the real node's name, beside kwok-node-<n>.
	realNodeName = "real-node-0"
	// RealNodeLabel and its value mark the real node; its taint of the same
	// key keeps off it every pod that does not ask for it.
	RealNodeLabel = "seed.example.com/node"
	realNodeValue = "real"
	clusterDomain = "cluster.local"
	localhostName = "localhost"
)

// Config says where the cluster keeps its files, what it runs and on which
// ports. Every field can be set from the environment, as the Makefile does.
type Config struct {
	// Dir holds everything the cluster writes.
	Dir string
	// KwokNodes is the number of fake nodes; RealNodes is 0 or 1.
	KwokNodes int
	RealNodes int

	Ports Ports

	// Binaries: KubeAPIServer is the API server, which envtest runs too;
	// Kube is the multi-call program of the other Kubernetes components;
	// CNIDir holds the CNI plugins.
	Etcd, KubeAPIServer, Kube, Kwok  string
	Kustomize                        string
	Containerd, ContainerdShim, Runc string
	CNIDir, Registry, Images         string
	KwokVersion                      string
	// CSIDir holds the CSI driver's and its sidecars' programs, which the
	// images program reads, and the snapshot CRDs, in crds/.
	CSIDir      string
	InfraImages string
}

// Ports are the TCP ports the cluster's processes listen on.
type Ports struct {
	Etcd, EtcdPeer, APIServer, ControllerManager, Scheduler, Kwok int
	Registry, RegistryTLS                                         int
	Kubelet, KubeletHealthz, KubeProxyHealthz, KubeProxyMetrics   int
}

// ConfigFromEnv reads the configuration from the environment, with the
// defaults docs/local-cluster.md documents.
func ConfigFromEnv() (Config, error) {
	c := Config{
		Dir:            env("CLUSTER_DIR", filepath.Join("bin", "cluster")),
		Etcd:           os.Getenv("ETCD"),
		KubeAPIServer:  os.Getenv("KUBE_APISERVER"),
		Kube:           os.Getenv("KUBE"),
		Kwok:           os.Getenv("KWOK"),
		Kustomize:      os.Getenv("KUSTOMIZE"),
		Containerd:     os.Getenv("CONTAINERD"),
		ContainerdShim: os.Getenv("CONTAINERD_SHIM"),
		Runc:           env("RUNC", "/usr/sbin/runc"),
		CNIDir:         os.Getenv("CNI_DIR"),
		Registry:       os.Getenv("REGISTRY"),
		Images:         os.Getenv("IMAGES"),
		KwokVersion:    os.Getenv("KWOK_VERSION"),
		CSIDir:         os.Getenv("CSI_DIR"),
	}
	var err error
	ints := []struct {
		into *int
		name string
		def  int
	}{
		{&c.KwokNodes, "CLUSTER_NODES", 2},
		{&c.RealNodes, "CLUSTER_REAL_NODES", 1},
		{&c.Ports.Etcd, "ETCD_PORT", 12379},
		{&c.Ports.EtcdPeer, "ETCD_PEER_PORT", 12380},
		{&c.Ports.APIServer, "APISERVER_PORT", 16443},
		{&c.Ports.ControllerManager, "CONTROLLER_MANAGER_PORT", 20257},
		{&c.Ports.Scheduler, "SCHEDULER_PORT", 20259},
		{&c.Ports.Kwok, "KWOK_PORT", 20247},
		{&c.Ports.Registry, "REGISTRY_PORT", 15000},
		{&c.Ports.RegistryTLS, "REGISTRY_TLS_PORT", 15443},
		{&c.Ports.Kubelet, "KUBELET_PORT", 20250},
		{&c.Ports.KubeletHealthz, "KUBELET_HEALTHZ_PORT", 20248},
		{&c.Ports.KubeProxyHealthz, "KUBE_PROXY_HEALTHZ_PORT", 20256},
		{&c.Ports.KubeProxyMetrics, "KUBE_PROXY_METRICS_PORT", 20249},
	}
	for _, i := range ints {
		if *i.into, err = envInt(i.name, i.def); err != nil {
			return c, err
		}
	}
	if c.RealNodes != 0 && c.RealNodes != 1 {
		return c, fmt.Errorf("CLUSTER_REAL_NODES=%d: the cluster has one real node or none", c.RealNodes)
	}
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		return c, err
	}
	return c, nil
}

// apiAddress is where the API server listens: on the bridge when pods run
// for real and must reach it, on loopback otherwise.
func (c Config) apiAddress() netip.Addr {
	if c.RealNodes > 0 {
		return hostAddress
	}
	return loopback
}

// APIServerURL is the API server's address, as every kubeconfig names it.
func (c Config) APIServerURL() string {
	return "https://" + netip.AddrPortFrom(c.apiAddress(), uint16(c.Ports.APIServer)).String()
}

// RegistryHost is the registry's host:port, as image references name it.
func (c Config) RegistryHost() string {
	return netip.AddrPortFrom(c.apiAddress(), uint16(c.Ports.Registry)).String()
}

// RegistryTLSHost is the host:port of the registry's HTTPS twin
// (registry.go), whose certificate CAFile verifies.
func (c Config) RegistryTLSHost() string {
	return netip.AddrPortFrom(c.apiAddress(), uint16(c.Ports.RegistryTLS)).String()
}

// CAFile is the cluster's certificate authority.
func (c Config) CAFile() string { return c.pki().path("ca.crt") }

// Kubeconfig is the administrator's kubeconfig.
func (c Config) Kubeconfig() string { return filepath.Join(c.Dir, "kubeconfig") }

func (c Config) path(elem ...string) string {
	return filepath.Join(append([]string{c.Dir}, elem...)...)
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a number", name, v)
	}
	return n, nil
}
