//go:build olm

package olm

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// Each install mode the CSV declares, through an OperatorGroup and a
// Subscription to the default channel, as OperatorHub's console makes
// them. The specs run one at a time: OperatorGroups that overlap and
// provide the same APIs conflict.
var _ = Describe("Installed by OLM from the catalog", Ordered, Serial, func() {
	// Where prometheus-operator is, the operator keeps its ServiceMonitor
	// and PrometheusRule; the other specs install it where it is not.
	BeforeAll(servePrometheusOperatorAPI)

	// targets are the namespaces an install mode watches, given the
	// operator's own and two others; none is every namespace.
	DescribeTable("in each install mode",
		func(ctx SpecContext, mode operatorsv1alpha1.InstallModeType, targets func(own, a, b string) []string) {
			own, a, b := createNamespace(ctx, "seed-olm"), createNamespace(ctx, "seed-a"), createNamespace(ctx, "seed-b")
			watched := targets(own, a, b)
			operatorGroup(ctx, own, "seed", watched...)
			start := time.Now()
			sub := subscribe(ctx, own, subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic))
			csv := installed(ctx, sub, csvName(version))
			AddReportEntry(string(mode)+": Subscription to CSV Succeeded", time.Since(start).Round(100*time.Millisecond).String())

			Expect(csv.Spec.InstallModes).To(ContainElement(operatorsv1alpha1.InstallMode{Type: mode, Supported: true}))
			// The descriptors the console's forms and views use, as the
			// bundle has them.
			owned := csv.Spec.CustomResourceDefinitions.Owned
			Expect(owned).To(Equal(bundleCSV().Spec.CustomResourceDefinitions.Owned))
			for _, crd := range owned {
				Expect(crd.SpecDescriptors).NotTo(BeEmpty(), crd.Kind)
				Expect(crd.StatusDescriptors).NotTo(BeEmpty(), crd.Kind)
			}
			d := manager(ctx, own)
			Expect(managerImageOf(d)).To(Equal(csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Image))
			Expect(managerImageOf(d)).To(Equal(managerImage(version)))
			expectWatching(ctx, d, watched)

			// Where it does not watch, a WebServer is left alone: made
			// before the examples, and checked after the operator's work
			// on them.
			outside := b
			if mode == operatorsv1alpha1.InstallModeTypeMultiNamespace {
				outside = createNamespace(ctx, "seed-c")
			}
			var unwatched *unstructured.Unstructured
			if len(watched) > 0 {
				unwatched = createUnwatched(ctx, outside)
			}

			// Every example reaches Ready where the operator watches.
			in := own
			if len(watched) > 0 {
				in = watched[len(watched)-1]
			}
			objects := examples(csv, in)
			DeferCleanup(deleteAll, objects)
			createReady(ctx, objects...)

			// Where it does not watch, it has no rights either.
			expectConfined(ctx, own, watched, outside)
			expectSelfMonitored(ctx, own)
			if unwatched != nil {
				expectIgnored(ctx, unwatched)
			}
		},
		Entry("OwnNamespace", operatorsv1alpha1.InstallModeTypeOwnNamespace, func(own, _, _ string) []string { return []string{own} }),
		Entry("SingleNamespace", operatorsv1alpha1.InstallModeTypeSingleNamespace, func(_, a, _ string) []string { return []string{a} }),
		Entry("MultiNamespace", operatorsv1alpha1.InstallModeTypeMultiNamespace, func(_, a, b string) []string { return []string{a, b} }),
		Entry("AllNamespaces", operatorsv1alpha1.InstallModeTypeAllNamespaces, func(_, _, _ string) []string { return nil }),
	)
})

// expectWatching checks that the manager's pods watch the given namespaces
// (every namespace, when none): OLM sets the olm.targetNamespaces
// annotation, which the CSV passes to the manager as WATCH_NAMESPACE.
func expectWatching(ctx context.Context, d *appsv1.Deployment, watched []string) {
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(d.Namespace), client.MatchingLabels(d.Spec.Selector.MatchLabels))).To(Succeed())
	Expect(pods.Items).NotTo(BeEmpty())
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		Expect(strings.Split(p.Annotations["olm.targetNamespaces"], ",")).To(ConsistOf(orEmpty(watched)), "pod %s", p.Name)
		Expect(p.Spec.Containers[0].Env).To(ContainElement(And(
			HaveField("Name", "WATCH_NAMESPACE"),
			HaveField("ValueFrom.FieldRef.FieldPath", "metadata.annotations['olm.targetNamespaces']"),
		)))
	}
}

// orEmpty is what strings.Split makes of a joined list: one empty string
// for none.
func orEmpty(list []string) []string {
	if len(list) == 0 {
		return []string{""}
	}
	return list
}

// createUnwatched creates a WebServer in a namespace the operator does not
// watch, for expectIgnored.
func createUnwatched(ctx context.Context, namespace string) *unstructured.Unstructured {
	ws := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": seedv1alpha1.GroupVersion.String(), "kind": "WebServer",
		"metadata": map[string]any{"name": "unwatched", "namespace": namespace},
		"spec":     map[string]any{"replicas": int64(1)},
	}}
	Expect(k8sClient.Create(ctx, ws)).To(Succeed())
	return ws
}

// expectIgnored checks that nothing happened to ws, made by
// createUnwatched while the operator was at work elsewhere: no status, no
// finalizer, no Deployment.
func expectIgnored(ctx context.Context, ws *unstructured.Unstructured) {
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), ws)).To(Succeed())
	Expect(ws.Object).NotTo(HaveKey("status"))
	Expect(ws.GetFinalizers()).To(BeEmpty())
	deployments := &appsv1.DeploymentList{}
	Expect(k8sClient.List(ctx, deployments, client.InNamespace(ws.GetNamespace()))).To(Succeed())
	Expect(deployments.Items).To(BeEmpty())
}

// expectConfined checks what the manager's ServiceAccount may do, as the
// API server's authorizer answers: write the objects it manages in the
// namespaces it watches, where OLM grants the CSV's permissions as Roles,
// and nothing of them outside, unless it watches every namespace; read the
// objects of no namespace it needs, whatever it watches.
func expectConfined(ctx context.Context, own string, watched []string, outside string) {
	user := "system:serviceaccount:" + own + ":" + managerDeployment
	expect := func(namespace string, allowed bool) {
		// OLM copies the Roles to the namespaces it targets as it syncs the
		// OperatorGroup, which may come after the CSV succeeds.
		Eventually(ctx, func(g Gomega) {
			for _, attributes := range []authorizationv1.ResourceAttributes{
				{Verb: "list", Group: "apps", Resource: "deployments"},
				{Verb: "create", Resource: "pods"},
				{Verb: "delete", Resource: "persistentvolumeclaims"},
				{Verb: "patch", Group: seedv1alpha1.GroupVersion.Group, Resource: "webservers", Subresource: "status"},
			} {
				attributes.Namespace = namespace
				review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: user, ResourceAttributes: &attributes,
				}}
				g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
				g.Expect(review.Status.Allowed).To(Equal(allowed), "%s %s/%s %s in %s", user, attributes.Resource, attributes.Subresource, attributes.Verb, namespace)
			}
		}).Should(Succeed())
	}
	for _, namespace := range watched {
		expect(namespace, true)
	}
	expect(outside, len(watched) == 0)

	// The objects of no namespace that backups and autoGrow read, in every
	// mode: OLM grants the CSV's cluster permissions cluster-wide.
	Eventually(ctx, func(g Gomega) {
		for _, attributes := range []authorizationv1.ResourceAttributes{
			{Verb: "list", Resource: "nodes"},
			{Verb: "get", Resource: "nodes", Subresource: "stats"},
			{Verb: "get", Resource: "persistentvolumes"},
			{Verb: "get", Group: "storage.k8s.io", Resource: "storageclasses"},
			{Verb: "list", Group: "snapshot.storage.k8s.io", Resource: "volumesnapshotclasses"},
		} {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: user, ResourceAttributes: &attributes,
			}}
			g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
			g.Expect(review.Status.Allowed).To(BeTrue(), "%s %s/%s %s", user, attributes.Resource, attributes.Subresource, attributes.Verb)
		}
	}).Should(Succeed())
}
