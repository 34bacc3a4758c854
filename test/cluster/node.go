package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
)

// The real node: containerd runs its pods with runc, the CNI bridge plugin
// wires them to the bridge, the kubelet registers the node and kube-proxy
// programs Services with nftables. Everything they write is under the
// cluster's directory, but for the few paths the tools insist on
// (hostPaths).

func (c Config) realNodeIdentities() []identity {
	return []identity{
		{name: kubeletName, cn: "system:node:" + realNodeName, groups: []string{"system:nodes"}},
		{
			name: "kubelet-serving", cn: "system:node:" + realNodeName, groups: []string{"system:nodes"}, server: true,
			ips: netIPs(hostAddress, loopback), dns: []string{realNodeName, localhostName},
		},
		{name: kubeProxyName, cn: "system:" + kubeProxyName},
	}
}

// containerd runs with its shim on its PATH, as a node's package installs
// it: the configuration names the shim for the tasks it starts, but a
// containerd started again finds the shims of the running tasks by the
// name of their runtime, and without them loses their containers.
func (c Config) containerd() process {
	return process{name: containerdName, binary: c.Containerd, args: []string{
		"--config=" + c.path("containerd", "config.toml"),
	}, env: []string{"PATH=" + c.shimDir() + string(filepath.ListSeparator) + os.Getenv("PATH")}}
}

// shimDir holds the runc shim under the name containerd looks for.
func (c Config) shimDir() string { return c.path("containerd", "bin") }

// linkShim puts the runc shim in shimDir.
func (c Config) linkShim() error {
	link := filepath.Join(c.shimDir(), "containerd-shim-runc-v2")
	if err := os.MkdirAll(c.shimDir(), 0o755); err != nil {
		return err
	}
	if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Symlink(c.ContainerdShim, link)
}

func (c Config) containerdSocket() string { return c.path("containerd", "containerd.sock") }

// containerdConfig is containerd's configuration: its root, state and
// sockets in the cluster's directory, runc with the cgroupfs driver the
// kubelet uses, the CNI plugins built here, and registries (every one of
// them) resolved by the local registry, so that no pull ever leaves the
// machine.
func (c Config) containerdConfig(pauseImage string) string {
	return fmt.Sprintf(`version = 4
root = %[1]q
state = %[2]q

[plugins.'io.containerd.server.v1.grpc']
  address = %[3]q
[plugins.'io.containerd.server.v1.ttrpc']
  address = %[4]q
[plugins.'io.containerd.server.v1.debug']
  address = %[5]q
[plugins.'io.containerd.nri.v1.nri']
  disable = true

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %[6]q
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = %[7]q

[plugins.'io.containerd.cri.v1.runtime']
  # Without CAP_SYS_RESOURCE no process may lower its oom_score_adj, and
  # every sandbox would fail to start.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      runtime_path = %[8]q
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = %[9]q
        Root = %[10]q
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [%[11]q]
    conf_dir = %[12]q

[plugins.'io.containerd.transfer.v1.local']
  config_path = %[7]q
`,
		c.path("containerd", "root"), c.path("containerd", "state"),
		c.containerdSocket(), c.containerdSocket()+".ttrpc", c.path("containerd", "debug.sock"),
		pauseImage, c.path("containerd", "certs.d"),
		c.ContainerdShim, c.Runc, c.runcRoot(),
		c.CNIDir, c.path("cni", "net.d"))
}

// runcRoot is where runc keeps the state of the containers it runs.
func (c Config) runcRoot() string { return c.path("containerd", "runc") }

// registryHosts is containerd's hosts.toml for a registry name: the local
// registry, over plain HTTP, stands for it. Written for "_default", it
// stands for every registry: an image the local registry does not hold
// fails to pull rather than being fetched from the internet.
func (c Config) registryHosts() string {
	url := "http://" + c.RegistryHost()
	return fmt.Sprintf("server = %q\n\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", url, url)
}

// cniConfig puts pods on the bridge, in the real node's pod subnet. No
// masquerading: pods talk only to each other and to the host.
func (c Config) cniConfig() string {
	gateway := addrAt(realPodSubnet, 1)
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "seed",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": %q, "gateway": %q, "rangeStart": %q}]],
        "routes": [{"dst": %q}],
        "dataDir": %q
      }
    }
  ]
}
`, bridgeName, realPodSubnet, gateway, addrAt(realPodSubnet, 10), testRange, c.path("cni", "networks"))
}

func (c Config) kubelet() process {
	return process{name: kubeletName, binary: c.Kube, args: []string{
		kubeletName,
		"--config=" + c.path("kubelet", "config.yaml"),
		"--kubeconfig=" + c.path("kubelet.kubeconfig"),
		"--root-dir=" + c.path("kubelet", "root"),
		"--cert-dir=" + c.path("kubelet", "pki"),
		"--hostname-override=" + realNodeName,
		"--node-ip=" + hostAddress.String(),
		"--node-labels=" + RealNodeLabel + "=" + realNodeValue,
	}}
}

// kubeletConfig is the kubelet's configuration, with the settings this
// machine kind needs: cgroup v1 allowed, kernel settings left as they are
// where it can, and images imported or pulled alike counted as present.
// Volumes' usage is measured every 10 s rather than each minute, so that
// specs of a volume filling up wait seconds for the kubelet to see it.
func (c Config) kubeletConfig() string {
	p := c.pki()
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://%[1]s
address: %[2]s
port: %[3]d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %[4]d
tlsCertFile: %[5]s
tlsPrivateKeyFile: %[6]s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[7]s}
authorization: {mode: Webhook}
clusterDomain: %[8]s
clusterDNS: [%[9]s]
resolvConf: %[10]s
podLogsDir: %[11]s
maxPods: 110
volumeStatsAggPeriod: 10s
serializeImagePulls: false
evictionHard: {memory.available: "200Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
enforceNodeAllocatable: ["pods"]
protectKernelDefaults: false
imagePullCredentialsVerificationPolicy: NeverVerify
registerWithTaints:
- key: %[12]s
  value: %[13]s
  effect: NoSchedule
`,
		c.containerdSocket(), hostAddress, c.Ports.Kubelet, c.Ports.KubeletHealthz,
		p.path("kubelet-serving.crt"), p.path("kubelet-serving.key"), p.path("ca.crt"),
		clusterDomain, dnsServiceIP, c.path("kubelet", "resolv.conf"), c.path("kubelet", "pod-logs"),
		RealNodeLabel, realNodeValue)
}

// podResolvConf is the base of the pods' resolv.conf: the cluster's DNS
// answers, and nothing is ever forwarded beyond it.
func podResolvConf() string {
	return "nameserver " + dnsServiceIP.String() + "\n"
}

func (c Config) kubeProxy() process {
	return process{name: kubeProxyName, binary: c.Kube, args: []string{
		kubeProxyName, "--config=" + c.path(kubeProxyName+".yaml"), "--hostname-override=" + realNodeName,
	}}
}

// kubeProxyConfig programs Services with nftables, for the real node's pods
// and for the host; node ports answer on the host's bridge address only.
func (c Config) kubeProxyConfig() string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection:
  kubeconfig: %s
clusterCIDR: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:%d
metricsBindAddress: 127.0.0.1:%d
nodePortAddresses: [%s/32]
conntrack:
  maxPerCore: 0
  min: 0
`, c.path("kube-proxy.kubeconfig"), realPodSubnet, hostAddress, c.Ports.KubeProxyHealthz, c.Ports.KubeProxyMetrics, hostAddress)
}

// writeNodeFiles writes the configuration of the real node's programs.
func (c Config) writeNodeFiles(images map[string]string) error {
	files := map[string]string{
		c.path("containerd", "config.toml"):                       c.containerdConfig(images["pause"]),
		c.path("containerd", "certs.d", "_default", "hosts.toml"): c.registryHosts(),
		c.path("cni", "net.d", "10-seed.conflist"):                c.cniConfig(),
		c.path("kubelet", "config.yaml"):                          c.kubeletConfig(),
		c.path("kubelet", "resolv.conf"):                          podResolvConf(),
		c.path("kube-proxy.yaml"):                                 c.kubeProxyConfig(),
	}
	if err := c.linkShim(); err != nil {
		return err
	}
	return writeFiles(files)
}

func writeFiles(files map[string]string) error {
	for file, content := range files {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addrAt is the n-th address of an IPv4 prefix.
func addrAt(p netip.Prefix, n int) netip.Addr {
	a := p.Masked().Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) + uint32(n)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func netIPs(addrs ...netip.Addr) []net.IP {
	ips := make([]net.IP, 0, len(addrs))
	for _, a := range addrs {
		ips = append(ips, net.IP(a.AsSlice()))
	}
	return ips
}
