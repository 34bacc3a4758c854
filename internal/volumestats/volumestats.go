// Package volumestats reads how full a claim's volume is from the kubelet
// of the node that has it: the kubelet's summary API, on the kubelet's own
// port, which the kubelet authorizes as get on nodes/stats. Through the
// API server's node proxy it would take nodes/proxy, which also opens the
// kubelet's exec and logs to whoever has it.
package volumestats

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Usage is a volume's bytes, in use and the file system's size, as the
// kubelet measured them at Time (zero when it does not say).
type Usage struct {
	Used, Capacity int64
	Time           time.Time
}

// Reader reads volumes' usage from the kubelets.
type Reader struct {
	// Nodes reads the nodes a volume may be on, from the API server.
	Nodes client.Reader
	// HTTP asks the kubelets.
	HTTP *http.Client
}

// requestTimeout bounds a kubelet's answer: a reconcile waits on it.
const requestTimeout = 5 * time.Second

// maxNodes bounds the kubelets asked for one volume: a volume's node
// affinity names its node, or a handful.
const maxNodes = 3

// NewReader reads with the operator's credentials and trust: the kubelet
// authenticates the operator as the API server does, and its serving
// certificate is expected to be signed by the cluster's CA.
func NewReader(cfg *rest.Config, nodes client.Reader) (*Reader, error) {
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("making the kubelets' transport: %w", err)
	}
	return &Reader{Nodes: nodes, HTTP: &http.Client{Transport: transport, Timeout: requestTimeout}}, nil
}

// ClaimUsage is the usage of the volume of claim namespace/name, bound to
// volume pv, as the kubelet of its node reports it while a pod mounts it:
// false when no kubelet does (no pod uses the volume, or it has no node).
func (r *Reader) ClaimUsage(ctx context.Context, pv *corev1.PersistentVolume, namespace, name string) (Usage, bool, error) {
	nodes, err := r.nodesOf(ctx, pv)
	if err != nil {
		return Usage{}, false, err
	}
	for _, node := range nodes {
		summary, err := r.summary(ctx, &node)
		if err != nil {
			return Usage{}, false, err
		}
		if usage, ok := summary.claimUsage(namespace, name); ok {
			return usage, true, nil
		}
	}
	return Usage{}, false, nil
}

// nodesOf are the nodes a volume's node affinity admits, as its first
// term's In expressions select them: how CSI drivers (by their topology
// labels) and local volumes (by kubernetes.io/hostname) tie a volume to
// its node.
func (r *Reader) nodesOf(ctx context.Context, pv *corev1.PersistentVolume) ([]corev1.Node, error) {
	affinity := pv.Spec.NodeAffinity
	if affinity == nil || affinity.Required == nil || len(affinity.Required.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	term := affinity.Required.NodeSelectorTerms[0]
	selector := labels.NewSelector()
	for _, e := range term.MatchExpressions {
		if e.Operator != corev1.NodeSelectorOpIn {
			continue
		}
		requirement, err := labels.NewRequirement(e.Key, selection.In, e.Values)
		if err != nil {
			return nil, fmt.Errorf("volume %s's node affinity: %w", pv.Name, err)
		}
		selector = selector.Add(*requirement)
	}
	if selector.Empty() {
		return nil, nil
	}
	list := &corev1.NodeList{}
	if err := r.Nodes.List(ctx, list, client.MatchingLabelsSelector{Selector: selector}, client.Limit(maxNodes)); err != nil {
		return nil, fmt.Errorf("listing the nodes of volume %s: %w", pv.Name, err)
	}
	return list.Items, nil
}

// summary is a node's kubelet's summary of its pods' volumes.
func (r *Reader) summary(ctx context.Context, node *corev1.Node) (*summary, error) {
	address := internalIP(node)
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if address == "" || port == 0 {
		return &summary{}, nil
	}
	url := "https://" + net.JoinHostPort(address, strconv.Itoa(int(port))) + "/stats/summary?only_cpu_and_memory=false"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the kubelet of node %s: %w", node.Name, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("the kubelet of node %s answered %s: %s", node.Name, resp.Status, body)
	}
	s := &summary{}
	if err := json.NewDecoder(resp.Body).Decode(s); err != nil {
		return nil, fmt.Errorf("reading the kubelet of node %s: %w", node.Name, err)
	}
	return s, nil
}

func internalIP(node *corev1.Node) string {
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// summary is what the operator reads of the kubelet's summary API
// (k8s.io/kubelet/pkg/apis/stats/v1alpha1): its pods' volumes.
type summary struct {
	Pods []struct {
		Volumes []struct {
			Time          metav1.Time `json:"time"`
			UsedBytes     *uint64     `json:"usedBytes"`
			CapacityBytes *uint64     `json:"capacityBytes"`
			PVCRef        *struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"pvcRef"`
		} `json:"volume"`
	} `json:"pods"`
}

// claimUsage is the usage of claim namespace/name, from the first pod that
// mounts it: every pod's view of a volume is the same file system.
func (s *summary) claimUsage(namespace, name string) (Usage, bool) {
	for _, pod := range s.Pods {
		for _, v := range pod.Volumes {
			if v.PVCRef == nil || v.PVCRef.Namespace != namespace || v.PVCRef.Name != name || v.UsedBytes == nil || v.CapacityBytes == nil {
				continue
			}
			return Usage{Used: int64(*v.UsedBytes), Capacity: int64(*v.CapacityBytes), Time: v.Time.Time}, true
		}
	}
	return Usage{}, false
}
