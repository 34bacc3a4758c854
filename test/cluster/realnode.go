package cluster

import (
	"bytes"
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

//go:embed addons/*.yaml
var addons embed.FS

func (c Config) infraImagesFile() string { return c.path("infra-images.json") }

// startRealNode builds and pushes the images the node needs, starts
// containerd, the kubelet and kube-proxy, and runs CoreDNS and the volume
// provisioner on the node.
func (cl *Cluster) startRealNode(ctx context.Context) error {
	images, err := cl.pushInfraImages()
	if err != nil {
		return err
	}
	if err := cl.writeNodeFiles(images); err != nil {
		return err
	}
	if err := cl.startAndWait(ctx, cl.containerd(), 30*time.Second, func() error {
		_, err := os.Stat(cl.containerdSocket())
		return err
	}); err != nil {
		return err
	}
	for _, p := range []process{cl.kubelet(), cl.kubeProxy()} {
		if err := cl.ps.start(p); err != nil {
			return err
		}
	}
	if err := cl.waitFor(ctx, "the real node Ready", 90*time.Second, func() error {
		return cl.kubectl("wait", "--for=condition=Ready", "node/"+realNodeName, "--timeout=1s")
	}); err != nil {
		return err
	}
	// The snapshot classes' kind comes with the snapshot CRDs.
	if err := cl.kubectl("apply", "--server-side", "--filename="+filepath.Join(cl.CSIDir, "crds")); err != nil {
		return err
	}
	if err := cl.kubectl("wait", "--for=condition=Established", "--filename="+filepath.Join(cl.CSIDir, "crds")); err != nil {
		return err
	}
	manifests, err := cl.addons(images)
	if err != nil {
		return err
	}
	if err := cl.apply(manifests); err != nil {
		return err
	}
	deployments := []string{
		"kube-system/coredns", "local-path-storage/local-path-provisioner", "kube-system/" + metricsServerName, "kube-system/" + csiName,
	}
	for _, d := range deployments {
		namespace, name, _ := strings.Cut(d, "/")
		if err := cl.waitFor(ctx, d+" available", 120*time.Second, func() error {
			return cl.kubectl("wait", "--for=condition=Available", "deployment/"+name, "--namespace="+namespace, "--timeout=1s")
		}); err != nil {
			return err
		}
	}
	// Claims of the CSI storage class are provisioned on the nodes the
	// kubelet has registered the driver on.
	return cl.waitFor(ctx, "the CSI driver registered", 60*time.Second, func() error {
		return cl.kubectl("wait", "--for=jsonpath={.spec.drivers[0].name}="+CSIDriver, "csinode/"+realNodeName, "--timeout=1s")
	})
}

// pushInfraImages has the images program build and push the infra images
// (pause, CoreDNS, the provisioner and its helper) and reads what it
// pushed.
func (cl *Cluster) pushInfraImages() (map[string]string, error) {
	cmd := exec.Command(cl.Images, "push", "--registry="+cl.RegistryHost(), "--record="+cl.infraImagesFile(), "infra")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pushing the infra images: %w: %s", err, out.String())
	}
	images, err := ReadImages(cl.infraImagesFile())
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"pause", "coredns", "local-path-provisioner", metricsServerName, csiName, "busybox"} {
		if images[name] == "" {
			return nil, fmt.Errorf("the images program pushed no %s image", name)
		}
	}
	return images, nil
}

// addons are the manifests of CoreDNS, the local-path-provisioner,
// metrics-server and the CSI driver, for the real node.
func (cl *Cluster) addons(images map[string]string) (string, error) {
	metricsServer, err := cl.servingSecretData(metricsServerName, metricsServerName+".kube-system.svc")
	if err != nil {
		return "", err
	}
	metricsServer[imageKey] = images[metricsServerName]
	var all strings.Builder
	for file, data := range map[string]map[string]string{
		"addons/coredns.yaml":        {imageKey: images["coredns"]},
		"addons/local-path.yaml":     {imageKey: images["local-path-provisioner"], "HelperImage": images["busybox"], "VolumesDir": cl.path("volumes")},
		"addons/metrics-server.yaml": metricsServer,
		"addons/csi-tmpfs.yaml": {
			"Name": csiName, imageKey: images[csiName], "Driver": CSIDriver, "StorageClass": CSIStorageClass, "KubeletRoot": cl.path("kubelet", "root"),
		},
	} {
		data["NodeLabel"], data["NodeValue"] = RealNodeLabel, realNodeValue
		data["Domain"], data["DNSServiceIP"] = clusterDomain, dnsServiceIP.String()
		t, err := template.ParseFS(addons, file)
		if err != nil {
			return "", err
		}
		all.WriteString("---\n")
		if err := t.Option("missingkey=error").Execute(&all, data); err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
	}
	return all.String(), nil
}

// imageKey is the addon templates' name of their image.
const imageKey = "Image"

// metricsServerName names metrics-server's image, Service and certificate.
const metricsServerName = "metrics-server"

// The CSI driver's name, and its storage and snapshot classes', which
// DemoVolumes that back up, restore or grow name; csiName names its image
// and Deployment.
const (
	CSIDriver       = "tmpfs.csi.seed.local"
	CSIStorageClass = "csi-tmpfs"
	csiName         = "csi-tmpfs"
)

// servingSecretData issues a serving certificate for an addon's Service,
// for the API server to verify it by, and gives it as a template's
// ServingCert, ServingKey and CABundle, base64-encoded as a Secret's data
// and an APIService's caBundle are.
func (cl *Cluster) servingSecretData(name string, dns ...string) (map[string]string, error) {
	cert, key, ca, err := cl.ServingCertificate(name, dns...)
	if err != nil {
		return nil, err
	}
	data := map[string]string{}
	for field, file := range map[string]string{"ServingCert": cert, "ServingKey": key, "CABundle": ca} {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		data[field] = base64.StdEncoding.EncodeToString(b)
	}
	return data, nil
}

// drainRealNode stops the real node's pods before the node's programs stop,
// so that the kubelet takes their containers, network namespaces and
// volumes down; whatever is left is cleaned up from the host afterwards.
func (cl *Cluster) drainRealNode(ctx context.Context) error {
	if cl.ps.pid(cl.kubelet()) == 0 || !cl.apiReady() {
		return nil
	}
	// Nothing may replace the pods meanwhile.
	for _, p := range []process{cl.kwok(), cl.scheduler(), cl.controllerManager()} {
		if err := cl.ps.stop(p, 10*time.Second); err != nil {
			return err
		}
	}
	if err := cl.kubectl("delete", "pods", "--all-namespaces", "--field-selector=spec.nodeName="+realNodeName,
		"--grace-period=0", "--force", "--wait=false"); err != nil {
		return err
	}
	if err := cl.waitFor(ctx, "the real node's containers gone", 60*time.Second, func() error {
		entries, _ := os.ReadDir(cl.runcRoot() + "/k8s.io")
		if len(entries) > 0 {
			return fmt.Errorf("%d containers left", len(entries))
		}
		return nil
	}); err != nil {
		logf("%v; the host cleanup kills what is left", err)
	}
	return nil
}

// realNodeStatus prints what the real node reports of its runtime, kubelet
// and kube-proxy.
func (cl *Cluster) realNodeStatus() error {
	out, err := exec.Command("kubectl", "--kubeconfig="+cl.Kubeconfig(), "get", "node", realNodeName, "-o",
		`jsonpath={.status.nodeInfo.containerRuntimeVersion} {.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type=="Ready")].status}`).Output()
	if err != nil {
		return fmt.Errorf("reading node %s: %w", realNodeName, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 3 {
		return fmt.Errorf("node %s reports %q", realNodeName, out)
	}
	fmt.Printf("%-24s %s, kubelet %s, Ready=%s\n", "node "+realNodeName, fields[0], fields[1], fields[2])
	for name, url := range map[string]string{
		"kubelet healthz":    fmt.Sprintf("http://127.0.0.1:%d/healthz", cl.Ports.KubeletHealthz),
		"kube-proxy healthz": fmt.Sprintf("http://127.0.0.1:%d/healthz", cl.Ports.KubeProxyHealthz),
	} {
		state := "ok"
		if err := httpOK(url); err != nil {
			state = err.Error()
		}
		fmt.Printf("%-24s %s\n", name, state)
	}
	return nil
}

// RealNodeAnnotations steer a namespace's pods onto the real node: the API
// server's PodNodeSelector and PodTolerationRestriction plugins give every
// pod of a namespace so annotated the real node's selector and a
// toleration of its taint. The operator is never told.
func RealNodeAnnotations() map[string]string {
	return map[string]string{
		"scheduler.alpha.kubernetes.io/node-selector": RealNodeLabel + "=" + realNodeValue,
		"scheduler.alpha.kubernetes.io/defaultTolerations": fmt.Sprintf(
			`[{"key": %q, "operator": "Equal", "value": %q, "effect": "NoSchedule"}]`, RealNodeLabel, realNodeValue),
	}
}

// Steer annotates a namespace so that its pods run on the real node.
func (cl *Cluster) Steer(namespace string) error {
	annotations := RealNodeAnnotations()
	args := make([]string, 0, 4+len(annotations))
	args = append(args, "annotate", "namespace", namespace, "--overwrite")
	for k, v := range annotations {
		args = append(args, k+"="+v)
	}
	return cl.kubectl(args...)
}

// ReadImages reads a record that `images push --record` wrote: image name
// to the reference it was pushed as.
func ReadImages(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	images := map[string]string{}
	if err := json.Unmarshal(data, &images); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return images, nil
}
