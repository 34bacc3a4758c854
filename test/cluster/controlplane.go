package cluster

import (
	"fmt"
	"strings"
)

// The names of the cluster's components, for their processes, logs,
// certificates and kubeconfigs; and of the folders that outlive a
// cluster-down.
const (
	adminName             = "admin"
	etcdName              = "etcd"
	apiServerName         = "kube-apiserver"
	controllerManagerName = "kube-controller-manager"
	schedulerName         = "kube-scheduler"
	kwokName              = "kwok"
	registryName          = "registry"
	registryTLSName       = "registry-tls"
	containerdName        = "containerd"
	kubeletName           = "kubelet"
	kubeProxyName         = "kube-proxy"

	logsDir     = "logs"
	registryDir = "registry"

	// mastersGroup is the group RBAC lets do anything.
	mastersGroup = "system:masters"
)

// The control plane's identities: each component is the user Kubernetes'
// default RBAC expects. kwok stands in for kubelets and a volume
// provisioner, so it is an administrator.
var controlPlaneIdentities = []identity{
	{name: adminName, cn: "local-admin", groups: []string{mastersGroup}},
	{name: controllerManagerName, cn: "system:" + controllerManagerName},
	{name: schedulerName, cn: "system:" + schedulerName},
	{name: kwokName, cn: kwokName, groups: []string{mastersGroup}},
	// The API server's client certificate towards kubelets, for logs,
	// exec and port-forward.
	{name: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", groups: []string{mastersGroup}},
	// The API server's client certificate towards aggregated API servers
	// (OLM's packageserver), which trust the user it names in headers
	// only from this certificate.
	{name: frontProxyClientName, cn: frontProxyClientName},
}

// frontProxyClientName is the aggregation layer's client identity.
const frontProxyClientName = "front-proxy-client"

// apiServerIdentity is the API server's serving certificate: its addresses,
// and the names the kubernetes Service gives it.
func (c Config) apiServerIdentity() identity {
	return identity{
		name: "apiserver", cn: apiServerName, server: true,
		ips: netIPs(loopback, kubernetesServiceIP, c.apiAddress()),
		dns: []string{localhostName, "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + clusterDomain},
	}
}

func (c Config) etcd() process {
	client := fmt.Sprintf("http://127.0.0.1:%d", c.Ports.Etcd)
	peer := fmt.Sprintf("http://127.0.0.1:%d", c.Ports.EtcdPeer)
	return process{name: etcdName, binary: c.Etcd, args: []string{
		"--name=local", "--data-dir=" + c.path("etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=local=" + peer, "--unsafe-no-fsync",
	}}
}

func (c Config) apiServer() process {
	p := c.pki()
	args := []string{
		"--bind-address=" + c.apiAddress().String(), fmt.Sprintf("--secure-port=%d", c.Ports.APIServer),
		"--etcd-servers=" + fmt.Sprintf("http://127.0.0.1:%d", c.Ports.Etcd),
		"--tls-cert-file=" + p.path("apiserver.crt"), "--tls-private-key-file=" + p.path("apiserver.key"),
		"--client-ca-file=" + p.path("ca.crt"), "--authorization-mode=Node,RBAC",
		// As kubeadm has it: node plugins, such as the CSI driver, run
		// privileged; Pod Security Admission keeps other namespaces' pods
		// as their labels say.
		"--allow-privileged=true",
		"--service-account-issuer=https://kubernetes.default.svc." + clusterDomain,
		"--service-account-key-file=" + p.path("sa.pub"), "--service-account-signing-key-file=" + p.path("sa.key"),
		"--service-cluster-ip-range=" + serviceRange.String(),
		// PodNodeSelector and PodTolerationRestriction let a namespace's
		// annotations steer its pods onto the real node (RealNodeNamespace).
		// OwnerReferencesPermissionEnforcement, as OpenShift runs it: an
		// owner reference that blocks its owner's deletion needs update
		// on the owner's finalizers, which the operator's RBAC must grant.
		"--enable-admission-plugins=NodeRestriction,PodNodeSelector,PodTolerationRestriction,OwnerReferencesPermissionEnforcement",
		"--audit-policy-file=" + c.path(auditPolicyFile), "--audit-log-path=" + c.AuditLog(),
		"--kubelet-client-certificate=" + p.path("apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + p.path("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority=" + p.path("ca.crt"),
		"--kubelet-preferred-address-types=InternalIP",
		// The aggregation layer, for APIServices served by pods. It calls
		// them at their endpoints, as the host reaches pods directly.
		"--requestheader-client-ca-file=" + p.path("ca.crt"),
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + p.path(frontProxyClientName+".crt"),
		"--proxy-client-key-file=" + p.path(frontProxyClientName+".key"),
		"--enable-aggregator-routing=true",
	}
	if c.RealNodes > 0 {
		// Pods reach the API server through the kubernetes Service, whose
		// endpoint is the address it advertises.
		args = append(args, "--advertise-address="+hostAddress.String())
	} else {
		// The endpoint reconciler refuses a loopback address; without a
		// real node, no pod needs the kubernetes Service.
		args = append(args, "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none")
	}
	return process{name: apiServerName, binary: c.KubeAPIServer, args: args}
}

// The controller manager and the scheduler run as kubeadm runs them: with
// leader election at its default timings, so that one that cannot renew
// its lease exits, and restarted when they exit, with the kubelet's
// back-off for a static pod's container. A restart builds their informers
// anew, which is how a cluster people run gets out of client-go's
// reflector back-off after an API server outage.
func (c Config) controllerManager() process {
	kubeconfig := c.path(controllerManagerName + ".kubeconfig")
	return process{name: controllerManagerName, binary: c.Kube, supervised: true, args: []string{
		controllerManagerName,
		"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.Ports.ControllerManager), "--leader-elect=true",
		"--service-account-private-key-file=" + c.pki().path("sa.key"), "--root-ca-file=" + c.pki().path("ca.crt"),
		"--use-service-account-credentials=true",
		// Fast enough that a benchmark measures the operator, not the
		// built-in controllers.
		"--kube-api-qps=200", "--kube-api-burst=400",
		"--concurrent-deployment-syncs=20", "--concurrent-replicaset-syncs=20", "--concurrent-job-syncs=20",
		"--concurrent-gc-syncs=40",
	}}
}

func (c Config) scheduler() process {
	kubeconfig := c.path(schedulerName + ".kubeconfig")
	return process{name: schedulerName, binary: c.Kube, supervised: true, args: []string{
		schedulerName, "--config=" + c.path(schedulerName+".yaml"),
		"--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.Ports.Scheduler),
	}}
}

// schedulerConfig raises the scheduler's client limits, as the controller
// manager's.
func (c Config) schedulerConfig() string {
	return strings.Join([]string{
		"apiVersion: kubescheduler.config.k8s.io/v1",
		"kind: KubeSchedulerConfiguration",
		"clientConnection:",
		"  kubeconfig: " + c.path(schedulerName+".kubeconfig"),
		"  qps: 200",
		"  burst: 400",
		"leaderElection:",
		"  leaderElect: true",
		"",
	}, "\n")
}

func (c Config) pki() *pki { return &pki{dir: c.path("pki")} }
