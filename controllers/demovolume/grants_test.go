package demovolume

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// The operator reads a DemoVolume or a Job straight from the API server
// only when setting its finalizer met a conflict, which the end-to-end
// suite's "every grant used" check may never see. Each grant is shown
// needed here, with a copy of the object that another client has changed
// since it was read.
var _ = Describe("Grants the operator uses after a conflict", Serial, func() {
	const probe = "grants.seed.example.com/probe"

	DescribeTable("setting a finalizer on an object changed since it was read is refused without get, and works with it",
		func(ctx SpecContext, group, resource string, newObject func(namespace string) client.Object) {
			obj := newObject(env.Namespace(ctx, "grants"))
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
			// The controller writes the object too, so the removal is retried
			// on a conflict.
			DeferCleanup(func(ctx SpecContext) {
				Eventually(ctx, func(g Gomega) {
					g.Expect(client.IgnoreNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj))).To(Succeed())
					if controllerutil.RemoveFinalizer(obj, probe) {
						g.Expect(client.IgnoreNotFound(k8sClient.Update(ctx, obj))).To(Succeed())
					}
				}).Should(Succeed())
			})
			// A copy read before another client's change, as from a cache
			// that has not seen it yet.
			stale := func(g Gomega) client.Object {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				read, _ := obj.DeepCopyObject().(client.Object)
				changed, _ := obj.DeepCopyObject().(client.Object)
				changed.SetLabels(map[string]string{"changed": changed.GetResourceVersion()})
				g.Expect(k8sClient.Update(ctx, changed)).To(Succeed())
				return read
			}
			setFinalizer := func(obj client.Object) error {
				return kube.SetFinalizer(ctx, env.Manager.GetClient(), env.Applier.APIReader, obj, probe, true)
			}

			restore := env.WithoutGrant(ctx, group, resource, "get")
			Eventually(ctx, func(g Gomega) {
				g.Expect(setFinalizer(stale(g))).To(MatchError(ContainSubstring(`cannot get resource "%s"`, resource)))
			}).Should(Succeed())

			restore(ctx)
			Eventually(ctx, func(g Gomega) {
				g.Expect(setFinalizer(stale(g))).To(Succeed())
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				g.Expect(obj.GetFinalizers()).To(ContainElement(probe))
			}).Should(Succeed())
		},
		Entry("a DemoVolume", seedv1alpha1.GroupVersion.Group, "demovolumes", func(namespace string) client.Object {
			return &seedv1alpha1.DemoVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace},
				Spec:       seedv1alpha1.DemoVolumeSpec{Name: "data", Size: 1},
			}
		}),
		Entry("a Job", batchv1.GroupName, "jobs", func(namespace string) client.Object {
			return &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "echo", Namespace: namespace},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "echo", Image: "busybox"}},
				}}},
			}
		}),
	)
})
