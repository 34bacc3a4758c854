package cluster

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// kwok plays the kubelets of the fake nodes, with the stages the kwok
// module ships: fast node and pod lifecycles, node heartbeats on leases,
// and volume provisioning.
func (c Config) kwok() process {
	return process{name: kwokName, binary: c.Kwok, args: []string{
		"--kubeconfig=" + c.path(kwokName+".kubeconfig"), "--config=" + c.path("kwok-stages.yaml"),
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		// kwok renews each node's Lease, as a kubelet does; without that,
		// the node lifecycle controller finds every node NotReady after its
		// grace period and marks their pods NotReady, which no stage undoes.
		"--node-lease-duration-seconds=40",
		"--cidr=" + kwokPodRange.String(), "--node-ip=127.0.0.1",
		fmt.Sprintf("--server-address=127.0.0.1:%d", c.Ports.Kwok),
	}}
}

// kwokModule is the directory of the pinned kwok module, whose kustomize
// folders hold the stages and the storage class.
func (c Config) kwokModule() (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", "sigs.k8s.io/kwok@"+c.KwokVersion).Output()
	if err != nil {
		return "", fmt.Errorf("downloading sigs.k8s.io/kwok@%s: %w", c.KwokVersion, err)
	}
	var module struct{ Dir string }
	if err := json.Unmarshal(out, &module); err != nil || module.Dir == "" {
		return "", fmt.Errorf("finding the sigs.k8s.io/kwok@%s module: %v", c.KwokVersion, err)
	}
	return module.Dir, nil
}

// kustomizeKinds builds a kustomization of the kwok module and keeps its
// documents of the given kind.
func (c Config) kustomizeKinds(module, folder, kind string) (string, error) {
	out, err := exec.Command(c.Kustomize, "build", filepath.Join(module, folder)).Output()
	if err != nil {
		return "", fmt.Errorf("kustomize build %s: %w", folder, err)
	}
	var kept []string
	for _, doc := range strings.Split(string(out), "\n---\n") {
		if strings.Contains("\n"+doc+"\n", "\nkind: "+kind+"\n") {
			kept = append(kept, strings.TrimSpace(doc))
		}
	}
	return strings.Join(kept, "\n---\n") + "\n", nil
}

// kwokStages are the stages kwok plays.
func (c Config) kwokStages(module string) (string, error) {
	var all []string
	for _, folder := range []string{"kustomize/stage/fast", "kustomize/stage/volume/fast"} {
		stages, err := c.kustomizeKinds(module, folder, "Stage")
		if err != nil {
			return "", err
		}
		all = append(all, strings.TrimSpace(stages))
	}
	return strings.Join(all, "\n---\n") + "\n", nil
}

// kwokNodes are the fake nodes, marked for kwok to manage.
func (c Config) kwokNodes() string {
	var b strings.Builder
	for i := range c.KwokNodes {
		fmt.Fprintf(&b, `apiVersion: v1
kind: Node
metadata:
  name: kwok-node-%[1]d
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: kwok-node-%[1]d
    kubernetes.io/os: linux
    type: kwok
---
`, i)
	}
	return b.String()
}
