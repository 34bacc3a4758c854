// Package cluster runs the local Kubernetes cluster of the demo and the
// end-to-end suites, on this machine: etcd, the control plane and kwok's
// fake nodes on loopback for scale, and one real node (containerd, runc,
// the CNI bridge, the kubelet and kube-proxy, with CoreDNS and a volume
// provisioner) where containers really run. A registry on the host serves
// every image the node pulls, all of them built here.
//
// The suites use it to stop and start components; hack/cluster is its
// command line (make cluster-up, cluster-down, cluster-status).
package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Cluster is the local cluster of a configuration.
type Cluster struct {
	Config
	ps processes
}

// New is the cluster of c; nothing starts until Up.
func New(c Config) *Cluster {
	return &Cluster{Config: c, ps: processes{pids: c.path("pids"), logs: c.path(logsDir)}}
}

// processes are the cluster's processes, in the order they start.
func (cl *Cluster) processes() []process {
	ps := []process{cl.etcd(), cl.apiServer(), cl.registry(), cl.registryTLS(), cl.controllerManager(), cl.scheduler(), cl.kwok()}
	if cl.RealNodes > 0 {
		ps = append(ps, cl.containerd(), cl.kubelet(), cl.kubeProxy())
	}
	return ps
}

// Up starts the cluster and returns once every node is Ready and the real
// node's add-ons run. A cluster that runs already is left as it is; what a
// crashed run left behind is cleaned up first.
func (cl *Cluster) Up(ctx context.Context) error {
	if err := cl.check(); err != nil {
		return err
	}
	var running, stopped []string
	for _, p := range cl.processes() {
		if cl.ps.pid(p) != 0 {
			running = append(running, p.name)
		} else {
			stopped = append(stopped, p.name)
		}
	}
	if len(stopped) == 0 && cl.apiReady() {
		logf("already running; KUBECONFIG=%s", cl.Kubeconfig())
		return nil
	}
	if len(running) > 0 || fileExists(cl.hostStateFile()) {
		logf("cleaning up what an earlier run left (running: %v)", running)
		if err := cl.Down(ctx); err != nil {
			return err
		}
	}
	if err := cl.checkPorts(); err != nil {
		return err
	}
	// No process holds the cluster's ports, so a bridge or guard that is
	// still there belongs to no running cluster.
	if cl.RealNodes > 0 && leftNetwork() {
		logf("removing the network a cluster that no longer runs left (bridge %s, nftables %s)", bridgeName, guardTable)
		if err := cl.removeNetwork(); err != nil {
			return err
		}
	}
	start := time.Now()
	if err := cl.fresh(); err != nil {
		return err
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"writing certificates and kubeconfigs", cl.writeCredentials},
		{"starting the control plane", cl.startControlPlane},
		{"starting the fake nodes", cl.startKwok},
	}
	if cl.RealNodes > 0 {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"starting the real node", cl.startRealNode})
	}
	for _, step := range steps {
		logf("%s", step.what)
		if err := step.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", step.what, err)
		}
	}
	logf("ready in %s: %d kwok nodes, %d real node; export KUBECONFIG=%s",
		time.Since(start).Round(time.Second), cl.KwokNodes, cl.RealNodes, cl.Kubeconfig())
	return nil
}

// check says what is missing before anything starts.
func (cl *Cluster) check() error {
	binaries := map[string]string{
		"ETCD": cl.Etcd, "KUBE_APISERVER": cl.KubeAPIServer, "KUBE": cl.Kube, "KWOK": cl.Kwok,
		"KUSTOMIZE": cl.Kustomize, "REGISTRY": cl.Registry,
	}
	if cl.RealNodes > 0 {
		if os.Geteuid() != 0 {
			return errors.New("the real node needs root (bridge, mounts, cgroups); run as root, or with CLUSTER_REAL_NODES=0")
		}
		for name, path := range map[string]string{
			"CONTAINERD": cl.Containerd, "CONTAINERD_SHIM": cl.ContainerdShim, "RUNC": cl.Runc,
			"CNI_DIR": cl.CNIDir, "IMAGES": cl.Images, "CSI_DIR": cl.CSIDir,
		} {
			binaries[name] = path
		}
		for _, tool := range []string{"nft", "ip"} {
			if _, err := exec.LookPath(tool); err != nil {
				return fmt.Errorf("the real node needs %s: make host-packages installs it", tool)
			}
		}
	}
	for name, path := range binaries {
		if path == "" {
			return fmt.Errorf("%s is not set: run the cluster with make, which builds it", name)
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// checkPorts names the ports another process holds, before anything
// starts.
func (cl *Cluster) checkPorts() error {
	p := cl.Ports
	ports := map[string]int{
		"ETCD_PORT": p.Etcd, "ETCD_PEER_PORT": p.EtcdPeer, "APISERVER_PORT": p.APIServer,
		"CONTROLLER_MANAGER_PORT": p.ControllerManager, "SCHEDULER_PORT": p.Scheduler, "KWOK_PORT": p.Kwok,
		"REGISTRY_PORT": p.Registry, "REGISTRY_TLS_PORT": p.RegistryTLS,
	}
	if cl.RealNodes > 0 {
		ports["KUBELET_PORT"], ports["KUBELET_HEALTHZ_PORT"] = p.Kubelet, p.KubeletHealthz
		ports["KUBE_PROXY_HEALTHZ_PORT"], ports["KUBE_PROXY_METRICS_PORT"] = p.KubeProxyHealthz, p.KubeProxyMetrics
	}
	var busy []string
	for name, port := range ports {
		if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			_ = conn.Close()
			busy = append(busy, fmt.Sprintf("%d (%s)", port, name))
		}
	}
	if len(busy) > 0 {
		return fmt.Errorf("ports in use by another process: %s. Stop that process, or choose other ports, e.g. make cluster-up APISERVER_PORT=26443",
			strings.Join(busy, ", "))
	}
	return nil
}

// fresh empties the cluster's directory, but for the logs of the last run
// and the registry's images.
func (cl *Cluster) fresh() error {
	entries, err := os.ReadDir(cl.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() != registryDir {
			if err := os.RemoveAll(cl.path(e.Name())); err != nil {
				return err
			}
		}
	}
	for _, dir := range []string{cl.ps.pids, cl.ps.logs} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return nil
}

func (cl *Cluster) writeCredentials(context.Context) error {
	p, err := newPKI(cl.path("pki"))
	if err != nil {
		return err
	}
	identities := append([]identity{cl.apiServerIdentity(), cl.registryTLSIdentity()}, controlPlaneIdentities...)
	if cl.RealNodes > 0 {
		identities = append(identities, cl.realNodeIdentities()...)
	}
	for _, id := range identities {
		if err := p.issue(id); err != nil {
			return err
		}
	}
	if err := p.serviceAccountKey(); err != nil {
		return err
	}
	for _, name := range []string{adminName, controllerManagerName, schedulerName, kwokName, kubeletName, kubeProxyName} {
		if !fileExists(p.path(name + ".crt")) {
			continue
		}
		file := cl.path(name + ".kubeconfig")
		if name == adminName {
			file = cl.Kubeconfig()
		}
		if err := writeKubeconfig(file, cl.APIServerURL(), p, name); err != nil {
			return err
		}
	}
	return nil
}

func (cl *Cluster) startControlPlane(ctx context.Context) error {
	if cl.RealNodes > 0 {
		if err := cl.recordHost(); err != nil {
			return err
		}
		if err := cl.prepareHost(); err != nil {
			return err
		}
	}
	if err := writeFiles(map[string]string{cl.path(auditPolicyFile): auditPolicy()}); err != nil {
		return err
	}
	if err := cl.startAndWait(ctx, cl.etcd(), 30*time.Second, cl.etcdReady); err != nil {
		return err
	}
	if err := cl.startAndWait(ctx, cl.apiServer(), 90*time.Second, cl.apiServerReady); err != nil {
		return err
	}
	files := cl.registryConfigs()
	files[cl.path("kube-scheduler.yaml")] = cl.schedulerConfig()
	if err := writeFiles(files); err != nil {
		return err
	}
	if err := cl.startAndWait(ctx, cl.registry(), 30*time.Second, func() error {
		return httpOK("http://" + cl.RegistryHost() + "/v2/")
	}); err != nil {
		return err
	}
	verified, err := cl.caClient()
	if err != nil {
		return err
	}
	if err := cl.startAndWait(ctx, cl.registryTLS(), 30*time.Second, func() error {
		return get(verified, "https://"+cl.RegistryTLSHost()+"/v2/")
	}); err != nil {
		return err
	}
	for _, p := range []process{cl.controllerManager(), cl.scheduler()} {
		if err := cl.ps.start(p); err != nil {
			return err
		}
	}
	// The controller manager's service account controller makes the
	// default service account of each namespace; no pod can be created
	// without it.
	return cl.waitFor(ctx, "the default service account", 60*time.Second, func() error {
		return cl.kubectl("get", "serviceaccount", "default", "--namespace=default")
	})
}

func (cl *Cluster) startKwok(ctx context.Context) error {
	module, err := cl.kwokModule()
	if err != nil {
		return err
	}
	stages, err := cl.kwokStages(module)
	if err != nil {
		return err
	}
	storageClass, err := cl.kustomizeKinds(module, "kustomize/stage/volume/fast", "StorageClass")
	if err != nil {
		return err
	}
	if err := writeFiles(map[string]string{cl.path("kwok-stages.yaml"): stages}); err != nil {
		return err
	}
	if err := cl.ps.start(cl.kwok()); err != nil {
		return err
	}
	if err := cl.apply(cl.kwokNodes() + storageClass); err != nil {
		return err
	}
	return cl.waitFor(ctx, "the kwok nodes Ready", 60*time.Second, func() error {
		return cl.kubectl("wait", "--for=condition=Ready", "node", "--selector=type=kwok", "--timeout=1s")
	})
}

// startAndWait starts p and waits until ready succeeds.
func (cl *Cluster) startAndWait(ctx context.Context, p process, timeout time.Duration, ready func() error) error {
	if err := cl.ps.start(p); err != nil {
		return err
	}
	return cl.waitFor(ctx, p.name+" ready", timeout, ready)
}

// waitFor retries check until it succeeds, and gives up when the time is
// out or one of the cluster's processes has exited, showing its log.
func (cl *Cluster) waitFor(ctx context.Context, what string, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		for _, p := range cl.processes() {
			if fileExists(cl.ps.pidFile(p.name)) && cl.ps.pid(p) == 0 {
				return fmt.Errorf("%s exited; the end of its log (%s):\n%s", p.name, cl.ps.log(p.name), cl.ps.tail(p.name, 20))
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not happen within %s (last: %v); the logs are in %s", what, timeout, err, cl.ps.logs)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Down stops the cluster, puts the host back as it was, and deletes the
// cluster's state, but for the logs (until the next Up) and the registry's
// images.
func (cl *Cluster) Down(ctx context.Context) error {
	var errs []error
	if cl.RealNodes > 0 || fileExists(cl.hostStateFile()) {
		errs = append(errs, cl.drainRealNode(ctx))
	}
	ps := cl.processes()
	for i := len(ps) - 1; i >= 0; i-- {
		errs = append(errs, cl.ps.stop(ps[i], 10*time.Second))
	}
	errs = append(errs, cl.restoreHost())
	if err := errors.Join(errs...); err != nil {
		return err
	}
	entries, _ := os.ReadDir(cl.Dir)
	for _, e := range entries {
		if e.Name() != logsDir && e.Name() != registryDir {
			errs = append(errs, os.RemoveAll(cl.path(e.Name())))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	logf("stopped; the logs stay in %s until the next cluster-up", cl.ps.logs)
	return nil
}

// Status tells which of the cluster's processes run and, for the real
// node, what its runtime, kubelet and kube-proxy report.
func (cl *Cluster) Status() error {
	var stopped []string
	for _, p := range cl.processes() {
		if pid := cl.ps.pid(p); pid != 0 {
			restarts := ""
			if n := cl.ps.restarts(p); n >= 0 {
				restarts = fmt.Sprintf(", %d restarts", n)
			}
			fmt.Printf("%-24s running (pid %d%s)\n", p.name, pid, restarts)
		} else {
			fmt.Printf("%-24s stopped\n", p.name)
			stopped = append(stopped, p.name)
		}
	}
	if cl.RealNodes > 0 && len(stopped) == 0 {
		if err := cl.realNodeStatus(); err != nil {
			return err
		}
	}
	if len(stopped) > 0 {
		return fmt.Errorf("not running: %s", strings.Join(stopped, ", "))
	}
	return nil
}

// kubectl runs kubectl as the cluster's administrator.
func (cl *Cluster) kubectl(args ...string) error {
	return run(append([]string{"kubectl", "--kubeconfig=" + cl.Kubeconfig()}, args...)...)
}

// apply applies manifests with server-side apply.
func (cl *Cluster) apply(manifests string) error {
	return runInput(manifests, "kubectl", "--kubeconfig="+cl.Kubeconfig(), "apply", "--server-side", "--force-conflicts", "-f", "-")
}

func httpOK(url string) error {
	return get(&http.Client{Timeout: 2 * time.Second}, url)
}

// caClient is an HTTP client for servers whose certificates the cluster's
// CA issued.
func (cl *Cluster) caClient() (*http.Client, error) {
	ca, err := os.ReadFile(cl.CAFile())
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s", cl.CAFile())
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	return &http.Client{Timeout: 2 * time.Second, Transport: transport}, nil
}

func get(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
