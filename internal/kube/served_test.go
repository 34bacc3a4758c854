package kube

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

func TestServed(t *testing.T) {
	snapshots := schema.GroupVersion{Group: "snapshot.storage.k8s.io", Version: "v1"}
	tests := []struct {
		name    string
		kind    schema.GroupVersionKind
		status  int
		want    bool
		wantErr bool
	}{
		{name: "a kind the group version lists", kind: snapshots.WithKind("VolumeSnapshot"), status: http.StatusOK, want: true},
		{name: "a kind it does not list", kind: snapshots.WithKind("VolumeGroupSnapshot"), status: http.StatusOK, want: false},
		{name: "a group version not served", kind: snapshots.WithKind("VolumeSnapshot"), status: http.StatusNotFound, want: false},
		{name: "discovery failing", kind: snapshots.WithKind("VolumeSnapshot"), status: http.StatusInternalServerError, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				g.Expect(r.URL.Path).To(Equal("/apis/" + snapshots.String()))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				if tt.status != http.StatusOK {
					return
				}
				g.Expect(json.NewEncoder(w).Encode(&metav1.APIResourceList{
					GroupVersion: snapshots.String(),
					APIResources: []metav1.APIResource{
						{Name: "volumesnapshots", Namespaced: true, Kind: "VolumeSnapshot"},
						{Name: "volumesnapshots/status", Namespaced: true, Kind: "VolumeSnapshot"},
					},
				})).To(Succeed())
			}))
			defer server.Close()

			served, err := Served(&rest.Config{Host: server.URL}, tt.kind)
			if tt.wantErr {
				g.Expect(err).To(MatchError(ContainSubstring("discovering " + snapshots.String())))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(served).To(Equal(tt.want))
		})
	}
}
