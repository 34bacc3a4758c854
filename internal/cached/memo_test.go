package cached

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
)

// The memo is seen at work through a change it cannot see: an image changed
// under the same generation, which the API server never does. Where the
// digest then differs from the first, it was computed again.
func TestDigestMemo(t *testing.T) {
	deployment := func() *appsv1.Deployment {
		config := applytest.Deployment("nginx:1.27").WithAnnotations(map[string]string{"note": "a"})
		d := applytest.AppliedDeployment(t, config, map[string]string{"note": "a", "deployment.kubernetes.io/revision": "1"})
		d.UID, d.Generation = "uid-1", 1
		d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "WebServer", Name: "web", UID: "owner", Controller: ptr.To(true)}}
		return d
	}
	tests := []struct {
		name string
		// before changes the first object, change the next.
		before, change func(d *appsv1.Deployment)
		remembered     bool
	}{
		{name: "only the status changed", change: func(*appsv1.Deployment) {}, remembered: true},
		{name: "the resource version and the entry's time changed", remembered: true, change: func(d *appsv1.Deployment) {
			d.ResourceVersion = "2"
			d.ManagedFields[0].Time = ptr.To(metav1.Now())
		}},
		{name: "the generation was raised", change: func(d *appsv1.Deployment) { d.Generation++ }},
		{name: "a label the operator applies changed", change: func(d *appsv1.Deployment) { d.Labels["app"] = "other" }},
		{name: "an annotation the operator applies changed", change: func(d *appsv1.Deployment) { d.Annotations["note"] = "b" }},
		{name: "another's label was added", remembered: true, change: func(d *appsv1.Deployment) { d.Labels["team"] = "a" }},
		{name: "another's annotation changed", remembered: true, change: func(d *appsv1.Deployment) {
			d.Annotations["deployment.kubernetes.io/revision"] = "2"
		}},
		{name: "the owner is no longer the controller", change: func(d *appsv1.Deployment) { d.OwnerReferences[0].Controller = nil }},
		{name: "a finalizer was added", change: func(d *appsv1.Deployment) { d.Finalizers = []string{"example.com/hold"} }},
		{name: "the operator's entry changed", change: func(d *appsv1.Deployment) {
			fields := strings.Replace(d.ManagedFields[0].FieldsV1.String(), `"f:spec":{`, `"f:spec":{"f:paused":{},`, 1)
			d.ManagedFields[0].FieldsV1 = metav1.NewFieldsV1(fields)
		}},
		{name: "another object", change: func(d *appsv1.Deployment) { d.UID = "uid-2" }},
		{name: "an object without a generation", before: func(d *appsv1.Deployment) { d.Generation = 0 }, change: func(d *appsv1.Deployment) {
			d.Generation = 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			digests := newDigestMemo()
			first := deployment()
			if tt.before != nil {
				tt.before(first)
			}
			_, err := Owned{Type: &appsv1.Deployment{}}.transform(first, digests)
			g.Expect(err).NotTo(HaveOccurred())

			next := deployment()
			next.Spec.Template.Spec.Containers[0].Image = "busybox"
			tt.change(next)
			_, err = Owned{Type: &appsv1.Deployment{}}.transform(next, digests)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.remembered {
				g.Expect(next.Annotations[apply.DigestAnnotation]).To(Equal(first.Annotations[apply.DigestAnnotation]))
			} else {
				g.Expect(next.Annotations[apply.DigestAnnotation]).NotTo(Equal(first.Annotations[apply.DigestAnnotation]))
			}
		})
	}
}

// The memo forgets an object once twice its limit of others came after it.
func TestDigestMemoForgets(t *testing.T) {
	g := NewWithT(t)
	digests := newDigestMemo()
	deployment := func(uid string) *appsv1.Deployment {
		d := applytest.AppliedDeployment(t, applytest.Deployment("nginx:1.27"), nil)
		d.UID, d.Generation = k8stypes.UID(uid), 1
		return d
	}
	remembered := func() bool {
		d := deployment("watched")
		d.Spec.Template.Spec.Containers[0].Image = "busybox"
		sum, ok := digests.digest(d)
		g.Expect(ok).To(BeTrue())
		whole, _ := digestOfWhole(deployment("watched"))
		return sum == whole
	}
	_, ok := digests.digest(deployment("watched"))
	g.Expect(ok).To(BeTrue())
	others := 0
	add := func(n int) {
		for range n {
			others++
			_, ok := digests.digest(deployment(fmt.Sprintf("other-%d", others)))
			g.Expect(ok).To(BeTrue())
		}
	}
	add(memoLimit)
	g.Expect(remembered()).To(BeTrue(), "remembered after %d others", others)
	add(memoLimit)
	g.Expect(remembered()).To(BeFalse(), "forgotten after %d others", others)
	g.Expect(digests.entries.Len()).To(BeNumerically("<=", 2*memoLimit))
}
