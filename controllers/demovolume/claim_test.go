package demovolume

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestClaim(t *testing.T) {
	tests := []struct {
		name             string
		dv               *seedv1alpha1.DemoVolume
		wantSize         string // as the issue writes it
		wantShown        string // as the API server prints it
		wantStorageClass *string
		wantAccessModes  []corev1.PersistentVolumeAccessMode
	}{
		{
			name:            "defaults",
			dv:              newDemoVolume(),
			wantSize:        "10Gi",
			wantShown:       "10Gi",
			wantAccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
		{
			name:            "the smallest size",
			dv:              newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 1 }),
			wantSize:        "1Gi",
			wantShown:       "1Gi",
			wantAccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
		{
			// A quantity is printed in its largest exact binary unit, as
			// the API server prints the claim's request too.
			name:            "a TiB",
			dv:              newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 1024 }),
			wantSize:        "1024Gi",
			wantShown:       "1Ti",
			wantAccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
		{
			name: "a storage class and shared access",
			dv: newDemoVolume(func(dv *seedv1alpha1.DemoVolume) {
				dv.Spec.StorageClassName = ptr.To("fast-ssd")
				dv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany}
			}),
			wantSize:         "10Gi",
			wantShown:        "10Gi",
			wantStorageClass: ptr.To("fast-ssd"),
			wantAccessModes:  []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany},
		},
	}
	builders := []struct {
		name     string
		build    func(dv *seedv1alpha1.DemoVolume, size string) *corev1ac.PersistentVolumeClaimApplyConfiguration
		retained bool
	}{
		{name: "desired", build: func(dv *seedv1alpha1.DemoVolume, _ string) *corev1ac.PersistentVolumeClaimApplyConfiguration {
			return desiredClaim(dv, "")
		}},
		{name: "retained", build: func(dv *seedv1alpha1.DemoVolume, size string) *corev1ac.PersistentVolumeClaimApplyConfiguration {
			return retainedClaim(dv, liveClaim("42", size))
		}, retained: true},
	}
	for _, tt := range tests {
		for _, b := range builders {
			t.Run(tt.name+"/"+b.name, func(t *testing.T) {
				g := NewWithT(t)
				c := b.build(tt.dv, tt.wantSize)

				g.Expect(c.Kind).To(HaveValue(Equal("PersistentVolumeClaim")))
				g.Expect(c.Name).To(HaveValue(Equal("data")), "the claim is named after the DemoVolume")
				g.Expect(c.Namespace).To(HaveValue(Equal("team-a")))
				labels := map[string]string{
					"app.kubernetes.io/name":       "demovolume",
					"app.kubernetes.io/instance":   "data",
					"app.kubernetes.io/managed-by": "seed-operator",
				}
				if b.retained {
					labels[retainedLabel] = "true"
					// Released, so that the garbage collector leaves it; the
					// resource version keeps the apply from re-creating a
					// claim deleted meanwhile.
					g.Expect(c.OwnerReferences).To(BeEmpty())
					g.Expect(c.ResourceVersion).To(HaveValue(Equal("42")))
				} else {
					g.Expect(c.OwnerReferences).To(HaveLen(1))
					owner := c.OwnerReferences[0]
					g.Expect(owner.Kind).To(HaveValue(Equal("DemoVolume")))
					g.Expect(owner.APIVersion).To(HaveValue(Equal("seed.example.com/v1alpha1")))
					g.Expect(owner.Name).To(HaveValue(Equal("data")))
					g.Expect(owner.UID).To(HaveValue(BeEquivalentTo("uid-1")))
					g.Expect(owner.Controller).To(HaveValue(BeTrue()))
					g.Expect(owner.BlockOwnerDeletion).To(HaveValue(BeTrue()))
					g.Expect(c.ResourceVersion).To(BeNil(), "the claim is created when missing")
				}
				g.Expect(c.Labels).To(Equal(labels))

				spec := c.Spec
				g.Expect(spec).NotTo(BeNil())
				requests := *spec.Resources.Requests
				g.Expect(requests).To(HaveLen(1))
				request := requests[corev1.ResourceStorage]
				g.Expect(request.Cmp(resource.MustParse(tt.wantSize))).To(BeZero(), "storage request %s", request.String())
				g.Expect(request.String()).To(Equal(tt.wantShown))
				// An unset class is left to the cluster's default, so the
				// operator must not own the field.
				g.Expect(spec.StorageClassName).To(Equal(tt.wantStorageClass))
				g.Expect(spec.AccessModes).To(Equal(tt.wantAccessModes))
				g.Expect(spec.VolumeName).To(BeNil(), "the volume is the PV controller's to choose")
			})
		}
	}
}

// liveClaim is a claim as the API server returns it, with the given
// resource version and request.
func liveClaim(resourceVersion, request string) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "team-a", ResourceVersion: resourceVersion}}
	if request != "" {
		pvc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(request)}
	}
	return pvc
}

func TestLiveClaimSpecKeepsAGrantedRequest(t *testing.T) {
	for _, tt := range []struct {
		name, request, capacity, want string
	}{
		{name: "at the spec's size", request: "10Gi", capacity: "10Gi", want: "10Gi"},
		{name: "the spec raised", request: "4Gi", capacity: "4Gi", want: "10Gi"},
		// Taken back: a request may go down to the capacity, as when an
		// expansion cannot finish.
		{name: "someone asking for more, not granted yet", request: "50Gi", capacity: "10Gi", want: "10Gi"},
		{name: "grown past the spec, by hand or by a retaining DemoVolume's autoGrow", request: "50Gi", capacity: "50Gi", want: "50Gi"},
		{name: "grown past the spec, on a volume rounded up", request: "50Gi", capacity: "64Gi", want: "50Gi"},
		{name: "a file share's capacity, larger than any request", request: "10Gi", capacity: "8Ei", want: "10Gi"},
		{name: "not bound yet", request: "50Gi", want: "10Gi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			live := liveClaim("7", tt.request)
			if tt.capacity != "" {
				live.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(tt.capacity)}
			}
			live.Spec.DataSourceRef = &corev1.TypedObjectReference{APIGroup: ptr.To(snapshotAPIGroup), Kind: SnapshotGVK.Kind, Name: "data-1"}
			c := liveClaimSpec(newDemoVolume(), live)
			request := (*c.Spec.Resources.Requests)[corev1.ResourceStorage]
			if request.String() != tt.want {
				t.Errorf("request %s, want %s", request.String(), tt.want)
			}
			if ref := c.Spec.DataSourceRef; ref == nil || ptr.Deref(ref.Name, "") != "data-1" {
				t.Errorf("data source %+v, want the backup the claim was made from", ref)
			}
		})
	}
}

func TestRetainedClaimKeepsTheClaimsRequest(t *testing.T) {
	tests := []struct {
		name     string
		live     string
		wantSize string
	}{
		// The spec asked for more than the API server let the claim have;
		// asking again on release would fail, and hold the DemoVolume.
		{name: "a growth refused", live: "4Gi", wantSize: "4Gi"},
		// Someone grew the claim by hand; it cannot go back below its
		// capacity.
		{name: "grown by hand", live: "50Gi", wantSize: "50Gi"},
		{name: "no request read", live: "", wantSize: "10Gi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c := retainedClaim(newDemoVolume(), liveClaim("7", tt.live))

			request := (*c.Spec.Resources.Requests)[corev1.ResourceStorage]
			g.Expect(request.String()).To(Equal(tt.wantSize))
			g.Expect(c.ResourceVersion).To(HaveValue(Equal("7")))
			g.Expect(c.Labels).To(HaveKeyWithValue(retainedLabel, "true"))
		})
	}
}
