package cluster

import (
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"os"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	kubeproxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

func testConfig(realNodes int) Config {
	return Config{
		Dir: "/work/bin/cluster", RealNodes: realNodes, KwokNodes: 2,
		Ports: Ports{APIServer: 16443, Registry: 15000, RegistryTLS: 15443, Kubelet: 20250, KubeletHealthz: 20248,
			KubeProxyHealthz: 20256, KubeProxyMetrics: 20249, Etcd: 12379, EtcdPeer: 12380},
		KubeAPIServer: "/work/bin/kube-apiserver", Kube: "/work/bin/kube", Containerd: "/work/bin/containerd", ContainerdShim: "/work/bin/shim",
		Runc: "/usr/sbin/runc", CNIDir: "/work/bin/cni",
	}
}

// The addresses everything else is derived from are in the test range.
func TestAddressesAreInTheTestRange(t *testing.T) {
	g := NewWithT(t)
	for _, a := range []netip.Addr{hostAddress, kubernetesServiceIP, dnsServiceIP} {
		g.Expect(testRange.Contains(a)).To(BeTrue(), "%s", a)
	}
	for _, p := range []netip.Prefix{realPodSubnet, kwokPodRange, serviceRange} {
		g.Expect(testRange.Contains(p.Addr()) && p.Bits() >= testRange.Bits()).To(BeTrue(), "%s", p)
		g.Expect(p.Overlaps(realPodSubnet)).To(Equal(p == realPodSubnet), "%s overlaps the real pods' subnet", p)
	}
	g.Expect(serviceRange.Contains(kubernetesServiceIP)).To(BeTrue())
	g.Expect(addrAt(serviceRange, 1)).To(Equal(kubernetesServiceIP), "the API server takes the first Service address")
	g.Expect(realPodSubnet.Contains(hostAddress)).To(BeTrue(), "the host is the pods' gateway")
}

func TestAddrAt(t *testing.T) {
	tests := []struct {
		prefix string
		n      int
		want   string
	}{
		{"198.18.0.0/24", 1, "198.18.0.1"},
		{"198.18.0.0/24", 10, "198.18.0.10"},
		{"198.19.0.0/16", 256, "198.19.1.0"},
		{"198.18.0.7/24", 0, "198.18.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			NewWithT(t).Expect(addrAt(netip.MustParsePrefix(tt.prefix), tt.n).String()).To(Equal(tt.want))
		})
	}
}

// The API server and the registry listen where pods can reach them when
// pods run for real, and on loopback only otherwise.
func TestListenAddresses(t *testing.T) {
	tests := []struct {
		realNodes                              int
		wantAPI, wantRegistry, wantRegistryTLS string
	}{
		{1, "https://198.18.0.1:16443", "198.18.0.1:15000", "198.18.0.1:15443"},
		{0, "https://127.0.0.1:16443", "127.0.0.1:15000", "127.0.0.1:15443"},
	}
	for _, tt := range tests {
		g := NewWithT(t)
		c := testConfig(tt.realNodes)
		g.Expect(c.APIServerURL()).To(Equal(tt.wantAPI))
		g.Expect(c.RegistryHost()).To(Equal(tt.wantRegistry))
		g.Expect(c.RegistryTLSHost()).To(Equal(tt.wantRegistryTLS))
		host, _, _ := strings.Cut(tt.wantRegistryTLS, ":")
		g.Expect(c.registryTLSIdentity().ips).To(ContainElement(BeEquivalentTo(netip.MustParseAddr(host).AsSlice())),
			"the HTTPS registry's certificate names the address it listens on")
		args := strings.Join(c.apiServer().args, " ")
		g.Expect(args).To(ContainSubstring("--bind-address=" + c.apiAddress().String()))
		g.Expect(strings.Contains(args, "--endpoint-reconciler-type=none")).To(Equal(tt.realNodes == 0))
	}
}

// The kubelet's configuration has only fields the kubelet knows, and the
// settings this machine kind needs.
func TestKubeletConfig(t *testing.T) {
	g := NewWithT(t)
	config := &kubeletv1beta1.KubeletConfiguration{}
	g.Expect(yaml.UnmarshalStrict([]byte(testConfig(1).kubeletConfig()), config)).To(Succeed())
	g.Expect(config.FailCgroupV1).To(HaveValue(BeFalse()))
	g.Expect(config.ImagePullCredentialsVerificationPolicy).To(BeEquivalentTo("NeverVerify"))
	g.Expect(config.ProtectKernelDefaults).To(BeFalse())
	g.Expect(config.ContainerRuntimeEndpoint).To(Equal("unix:///work/bin/cluster/containerd/containerd.sock"))
	g.Expect(config.Address).To(Equal("198.18.0.1"))
	g.Expect(config.ClusterDNS).To(Equal([]string{"198.19.0.10"}))
	g.Expect(config.RegisterWithTaints).To(ConsistOf(HaveField("Key", RealNodeLabel)))
	g.Expect(config.Authentication.Anonymous.Enabled).To(HaveValue(BeFalse()))
	g.Expect(config.PodLogsDir).To(HavePrefix("/work/bin/cluster/"))
}

func TestKubeProxyConfig(t *testing.T) {
	g := NewWithT(t)
	config := &kubeproxyv1alpha1.KubeProxyConfiguration{}
	g.Expect(yaml.UnmarshalStrict([]byte(testConfig(1).kubeProxyConfig()), config)).To(Succeed())
	g.Expect(config.Mode).To(BeEquivalentTo("nftables"))
	g.Expect(config.NodePortAddresses).To(Equal([]string{"198.18.0.1/32"}))
	g.Expect(config.HealthzBindAddress).To(HavePrefix("127.0.0.1:"))
	g.Expect(config.MetricsBindAddress).To(HavePrefix("127.0.0.1:"))
	g.Expect(config.Conntrack.MaxPerCore).To(HaveValue(BeZero()), "leaves nf_conntrack_max alone")
}

// Pods get addresses on the bridge, past the gateway, and routes to the
// test range only; nothing is masqueraded.
func TestCNIConfig(t *testing.T) {
	g := NewWithT(t)
	var config struct {
		Plugins []struct {
			Type, Bridge string
			IPMasq       bool `json:"ipMasq"`
			IPAM         struct {
				Ranges [][]struct{ Subnet, Gateway, RangeStart string }
				Routes []struct{ Dst string }
			}
		}
	}
	g.Expect(json.Unmarshal([]byte(testConfig(1).cniConfig()), &config)).To(Succeed())
	g.Expect(config.Plugins).To(HaveLen(1))
	bridge := config.Plugins[0]
	g.Expect(bridge.Bridge).To(Equal(bridgeName))
	g.Expect(bridge.IPMasq).To(BeFalse())
	g.Expect(bridge.IPAM.Ranges).To(Equal([][]struct{ Subnet, Gateway, RangeStart string }{
		{{Subnet: "198.18.0.0/24", Gateway: "198.18.0.1", RangeStart: "198.18.0.10"}},
	}))
	g.Expect(bridge.IPAM.Routes).To(ConsistOf(HaveField("Dst", "198.18.0.0/15")))
}

// Every registry is resolved by the local registry, so that no pull leaves
// the machine; the sandbox image is the one built here.
func TestContainerdConfig(t *testing.T) {
	g := NewWithT(t)
	c := testConfig(1)
	config := c.containerdConfig("198.18.0.1:15000/seed-infra/pause:3.10@sha256:abc")
	g.Expect(config).To(ContainSubstring("sandbox = \"198.18.0.1:15000/seed-infra/pause:3.10@sha256:abc\""))
	g.Expect(config).To(ContainSubstring("restrict_oom_score_adj = true"))
	g.Expect(config).To(ContainSubstring("Root = \"/work/bin/cluster/containerd/runc\""))
	g.Expect(c.registryHosts()).To(Equal("server = \"http://198.18.0.1:15000\"\n\n[host.\"http://198.18.0.1:15000\"]\n  capabilities = [\"pull\", \"resolve\"]\n"))
}

func TestGuardRules(t *testing.T) {
	g := NewWithT(t)
	rules := testConfig(1).guardRules()
	g.Expect(rules).To(ContainSubstring(`ip saddr 198.18.0.0/15 oifname != "seed0" drop`))
	g.Expect(rules).To(ContainSubstring(`iifname "seed0" ip daddr != 198.18.0.1 drop`))
}

// The add-ons render with every value they need, into manifests that pin
// the images pushed and keep to the real node.
func TestAddons(t *testing.T) {
	g := NewWithT(t)
	config := testConfig(1)
	config.Dir = t.TempDir()
	_, err := newPKI(config.pki().dir)
	g.Expect(err).NotTo(HaveOccurred())
	cl := New(config)
	manifests, err := cl.addons(map[string]string{
		"coredns":                "198.18.0.1:15000/seed-infra/coredns:v1@sha256:1",
		"local-path-provisioner": "198.18.0.1:15000/seed-infra/lpp:v1@sha256:2",
		"metrics-server":         "198.18.0.1:15000/seed-infra/metrics-server:v1@sha256:4",
		"busybox":                "198.18.0.1:15000/seed-infra/busybox:1@sha256:3",
		"csi-tmpfs":              "198.18.0.1:15000/seed-infra/csi-tmpfs:v1@sha256:5",
	})
	g.Expect(err).NotTo(HaveOccurred())
	var kinds []string
	for _, doc := range strings.Split(manifests, "\n---\n") {
		var obj struct{ Kind string }
		g.Expect(yaml.Unmarshal([]byte(doc), &obj)).To(Succeed(), doc)
		if obj.Kind != "" {
			kinds = append(kinds, obj.Kind)
		}
	}
	g.Expect(kinds).To(ContainElements("Deployment", "Service", "ConfigMap", "StorageClass", "ClusterRole", "Secret", "APIService",
		"CSIDriver", "VolumeSnapshotClass"))
	g.Expect(manifests).To(ContainSubstring("image: 198.18.0.1:15000/seed-infra/coredns:v1@sha256:1"))
	g.Expect(manifests).To(ContainSubstring("image: 198.18.0.1:15000/seed-infra/busybox:1@sha256:3"))
	g.Expect(manifests).To(ContainSubstring("image: 198.18.0.1:15000/seed-infra/metrics-server:v1@sha256:4"))
	g.Expect(manifests).To(ContainSubstring("image: 198.18.0.1:15000/seed-infra/csi-tmpfs:v1@sha256:5"))
	g.Expect(manifests).To(ContainSubstring("--socket="+config.path("kubelet", "root", "plugins", CSIDriver, "csi.sock")),
		"the driver's socket is in the kubelet's plugin folder")
	g.Expect(manifests).To(ContainSubstring("mountPropagation: Bidirectional"), "the driver's mounts reach the kubelet")
	g.Expect(manifests).To(ContainSubstring("clusterIP: 198.19.0.10"))
	g.Expect(manifests).To(ContainSubstring(`"` + config.path("volumes") + `"`))
	ca, err := os.ReadFile(config.pki().path("ca.crt"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(manifests).To(ContainSubstring("caBundle: "+base64.StdEncoding.EncodeToString(ca)),
		"the API server verifies metrics-server by the cluster's CA")
}

// The two registries serve one storage: the first writes it, the second,
// over HTTPS with the cluster CA's certificate, only reads it.
func TestRegistryConfigs(t *testing.T) {
	g := NewWithT(t)
	c := testConfig(1)
	type config struct {
		Storage struct {
			Filesystem  struct{ RootDirectory string } `json:"filesystem"`
			Maintenance struct {
				ReadOnly struct{ Enabled bool } `json:"readonly"`
			} `json:"maintenance"`
		} `json:"storage"`
		HTTP struct {
			Addr string `json:"addr"`
			TLS  struct{ Certificate, Key string }
		} `json:"http"`
	}
	configs := map[string]config{}
	for file, content := range c.registryConfigs() {
		var cfg config
		g.Expect(yaml.Unmarshal([]byte(content), &cfg)).To(Succeed(), file)
		configs[file] = cfg
	}
	plain, secure := configs[c.path("registry.yaml")], configs[c.path("registry-tls.yaml")]
	g.Expect(plain.Storage.Filesystem.RootDirectory).To(Equal(c.path(registryDir)))
	g.Expect(secure.Storage.Filesystem.RootDirectory).To(Equal(plain.Storage.Filesystem.RootDirectory))
	g.Expect(plain.Storage.Maintenance.ReadOnly.Enabled).To(BeFalse())
	g.Expect(secure.Storage.Maintenance.ReadOnly.Enabled).To(BeTrue())
	g.Expect(plain.HTTP.Addr).To(Equal(c.RegistryHost()))
	g.Expect(plain.HTTP.TLS.Certificate).To(BeEmpty())
	g.Expect(secure.HTTP.Addr).To(Equal(c.RegistryTLSHost()))
	g.Expect(secure.HTTP.TLS.Certificate).To(Equal(c.pki().path("registry-tls.crt")))
	g.Expect(secure.HTTP.TLS.Key).To(Equal(c.pki().path("registry-tls.key")))
}
