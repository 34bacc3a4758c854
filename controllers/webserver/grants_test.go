package webserver

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// The API server checks some of the operator's grants beside a request
// that its audit log records under another verb, so the end-to-end suite's
// "every grant used" check cannot see them used. Each is shown needed
// here: without it, a WebServer is refused its Deployment, and with it
// back, has it.
var _ = Describe("Grants the API server checks beside a request", Serial, func() {
	DescribeTable("a WebServer is refused its Deployment without the grant, and has it once the grant is back",
		func(ctx SpecContext, group, resource, verb, refusal string) {
			key := types.NamespacedName{Namespace: env.Namespace(ctx, "grants"), Name: "web"}
			restore := env.WithoutGrant(ctx, group, resource, verb)
			ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
			Expect(k8sClient.Create(ctx, ws)).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, key, ws)).To(Succeed())
				g.Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)).To(And(
					HaveField("Status", metav1.ConditionFalse),
					HaveField("Reason", seedv1alpha1.ReasonReconcileFailed),
					HaveField("Message", ContainSubstring(refusal)),
				))
			}).Should(Succeed())

			restore(ctx)
			Eventually(ctx, func(g Gomega) {
				d := &appsv1.Deployment{}
				g.Expect(k8sClient.Get(ctx, key, d)).To(Succeed())
				g.Expect(metav1.GetControllerOf(d)).To(HaveField("BlockOwnerDeletion", HaveValue(BeTrue())))
			}).Should(Succeed())
		},
		Entry("create: a server-side apply that makes a missing Deployment", "apps", "deployments", "create",
			`cannot create resource "deployments"`),
		Entry("update of the owner's finalizers: OwnerReferencesPermissionEnforcement, for blockOwnerDeletion",
			seedv1alpha1.GroupVersion.Group, "webservers/finalizers", "update", "cannot set blockOwnerDeletion"),
	)
})
