//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// A user's objects that have the name a custom resource would give its own
// keep doing what they did, on the real node, through the resource's life.
var _ = Describe("On the real node, with a name already taken", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = realNamespace(ctx, "taken")
	})

	It("keeps a user's Service serving their pods while a WebServer of the clashing name exists and after", func(ctx SpecContext) {
		backend := readyWebServer(ctx, namespace, "backend")
		theirs := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "mine-service", Namespace: namespace},
			Spec: corev1.ServiceSpec{
				Selector: kube.SelectorLabels("webserver", backend.Name),
				Ports:    []corev1.ServicePort{{Port: 5432, TargetPort: intstr.FromInt32(backend.Spec.ContainerPort)}},
			},
		}
		Expect(k8sClient.Create(ctx, theirs, client.FieldOwner("kubectl-create"))).To(Succeed())
		url := fmt.Sprintf("http://%s:5432/", theirs.Spec.ClusterIP)
		Eventually(ctx, func(g Gomega) { g.Expect(hostGet(url)).To(ContainSubstring(pageV1)) }).Should(Succeed())
		poller := startPolling(url)
		DeferCleanup(poller.stop)

		ws := &seedv1alpha1.WebServer{
			ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: namespace},
			Spec:       seedv1alpha1.WebServerSpec{Image: images["nginx-v2"]},
		}
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)
		expectSame(ctx, theirs)

		Expect(k8sClient.Delete(ctx, ws)).To(Succeed())
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), ws) }).Should(MatchError(ContainSubstring("not found")))
		expectSame(ctx, theirs)
		poller.stop()

		requests, failures, pages := poller.result()
		AddReportEntry("name conflict, Service", fmt.Sprintf("%d requests, %d failed", requests, len(failures)))
		Expect(failures).To(BeEmpty(), "requests to the user's Service failed")
		Expect(pages).To(HaveLen(1), "every answer is the user's page")
		Expect(pages).To(HaveKey(ContainSubstring(pageV1)))
	})

	It("keeps a user's claim and its data through a DemoVolume of its name created and deleted with reclaimPolicy Delete", func(ctx SpecContext) {
		theirs := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "userdata", Namespace: namespace, Labels: map[string]string{"team": "payments"}},
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: ptr.To("local-path"),
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				},
			},
		}
		Expect(k8sClient.Create(ctx, theirs, client.FieldOwner("kubectl-create"))).To(Succeed())
		Expect(runOnClaim(ctx, namespace, "writer", theirs.Name, "echo mine > /data/file && cat /data/file")).To(Equal("mine\n"))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())

		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: theirs.Name, Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: "Data", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To("local-path"),
			},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, dv, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)
		Expect(dv.Status.Phase).To(BeEmpty(), "nothing read from the user's claim")
		expectSame(ctx, theirs)

		Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv) }).Should(MatchError(ContainSubstring("not found")))
		expectSame(ctx, theirs)
		Expect(runOnClaim(ctx, namespace, "reader", theirs.Name, "cat /data/file")).To(Equal("mine\n"))
	})
})

// expectSame checks, for a while, that obj is as it was read: the same
// resource version, so not written at all.
func expectSame(ctx context.Context, obj client.Object) {
	Consistently(ctx, func(g Gomega) {
		now, _ := obj.DeepCopyObject().(client.Object)
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), now)).To(Succeed())
		g.Expect(now.GetResourceVersion()).To(Equal(obj.GetResourceVersion()), "%T %s was written", obj, obj.GetName())
		g.Expect(now.GetOwnerReferences()).To(BeEmpty())
	}).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
}
