package demovolume

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c := desiredClaim(tt.dv, holderRef, "")

			g.Expect(c.Kind).To(HaveValue(Equal("PersistentVolumeClaim")))
			g.Expect(c.Name).To(HaveValue(Equal("data")), "the claim is named after the DemoVolume")
			g.Expect(c.Namespace).To(HaveValue(Equal("team-a")))
			g.Expect(c.OwnerReferences).To(HaveLen(2))
			g.Expect(c.OwnerReferences[0]).To(testenv.ControllerReference("DemoVolume", "data", "uid-1"))
			// Its namespace holds it too, so that the garbage collector
			// does not delete it with the DemoVolume.
			holder := c.OwnerReferences[1]
			g.Expect(holder.Kind).To(HaveValue(Equal("Namespace")))
			g.Expect(holder.APIVersion).To(HaveValue(Equal("v1")))
			g.Expect(holder.Name).To(HaveValue(Equal("team-a")))
			g.Expect(holder.UID).To(HaveValue(BeEquivalentTo("ns-uid")))
			g.Expect(holder.Controller).To(BeNil())
			g.Expect(holder.BlockOwnerDeletion).To(BeNil())
			g.Expect(c.ResourceVersion).To(BeNil(), "the claim is created when missing")
			g.Expect(c.Annotations).To(Equal(map[string]string{ownerUIDAnnotation: "uid-1"}), "whose it is, once the reference is dropped")
			g.Expect(c.Labels).To(Equal(map[string]string{
				"app.kubernetes.io/name":       "demovolume",
				"app.kubernetes.io/instance":   "data",
				"app.kubernetes.io/managed-by": "seed-operator",
			}))

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
			c := liveClaimSpec(newDemoVolume(), holderRef, live)
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
