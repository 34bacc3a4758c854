package volumestats

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// A kubelet's summary, of two pods: one mounts the claim, one another.
const summaryJSON = `{"pods": [
 {"volume": [{"name": "tmp", "usedBytes": 1}, {"name": "data", "usedBytes": 7, "capacityBytes": 9, "pvcRef": {"name": "other", "namespace": "a"}}]},
 {"volume": [{"name": "data", "time": "2026-11-28T09:43:18Z", "usedBytes": 800, "capacityBytes": 1000, "pvcRef": {"name": "data", "namespace": "a"}}]}
]}`

// kubelet serves the summary on a node of its own, and gives the client
// that trusts it.
func kubelet(t *testing.T) (*corev1.Node, *http.Client) {
	t.Helper()
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stats/summary" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(summaryJSON))
	}))
	t.Cleanup(server.Close)
	host, port, err := net.SplitHostPort(server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"topology.example.com/node": "node-1"}}}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "node-1"}, {Type: corev1.NodeInternalIP, Address: host}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	return node, server.Client()
}

func volumeOn(terms ...corev1.NodeSelectorTerm) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{
			Required: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}},
	}
}

func TestClaimUsage(t *testing.T) {
	node, kubeletClient := kubelet(t)
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2", Labels: map[string]string{"topology.example.com/node": "node-2"}}}
	r := &Reader{Nodes: fake.NewClientBuilder().WithObjects(node, other).Build(), HTTP: kubeletClient}
	measured := time.Date(2026, 11, 28, 9, 43, 18, 0, time.UTC)
	byLabel := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.example.com/node", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}},
	}}
	elsewhere := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.example.com/node", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-2"}},
	}}
	for _, tt := range []struct {
		name      string
		pv        *corev1.PersistentVolume
		claim     string
		want      Usage
		wantFound bool
	}{
		{name: "a node by its label", pv: volumeOn(byLabel), claim: "data", want: Usage{Used: 800, Capacity: 1000, Time: measured}, wantFound: true},
		{name: "a claim no pod mounts", pv: volumeOn(byLabel), claim: "unused"},
		{name: "a node with no kubelet address", pv: volumeOn(elsewhere), claim: "data"},
		{name: "a volume with no node", pv: &corev1.PersistentVolume{}, claim: "data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := r.ClaimUsage(context.Background(), tt.pv, "a", tt.claim)
			if err != nil {
				t.Fatal(err)
			}
			if got.Used != tt.want.Used || got.Capacity != tt.want.Capacity || !got.Time.Equal(tt.want.Time) || found != tt.wantFound {
				t.Errorf("usage %+v, found %v; want %+v, %v", got, found, tt.want, tt.wantFound)
			}
		})
	}
}
