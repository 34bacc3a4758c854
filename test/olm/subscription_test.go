//go:build olm

package olm

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// csvName is the name of a version's ClusterServiceVersion.
func csvName(version string) string { return packageName + ".v" + version }

// managerImage is the manager's image of a version, as its CSV names it.
func managerImage(version string) string { return "quay.io/seed-operators/seed-operator:v" + version }

// managerImageOf is the image the manager's Deployment runs.
func managerImageOf(d *appsv1.Deployment) string { return d.Spec.Template.Spec.Containers[0].Image }

// subscription asks for the package from the suite's catalog.
func subscription(channel, startingCSV string, approval operatorsv1alpha1.Approval) *operatorsv1alpha1.SubscriptionSpec {
	return &operatorsv1alpha1.SubscriptionSpec{
		CatalogSource: catalogName, CatalogSourceNamespace: olmNamespace, Package: packageName,
		Channel: channel, StartingCSV: startingCSV, InstallPlanApproval: approval,
	}
}

// operatorGroup creates an OperatorGroup in the namespace, targeting the
// given namespaces, or every namespace when there are none.
func operatorGroup(ctx context.Context, namespace, name string, targets ...string) {
	og := &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
	}
	Expect(k8sClient.Create(ctx, og)).To(Succeed())
}

// subscribe creates a Subscription in the namespace; uninstall undoes it
// after the spec.
func subscribe(ctx context.Context, namespace string, spec *operatorsv1alpha1.SubscriptionSpec) *operatorsv1alpha1.Subscription {
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: namespace},
		Spec:       spec,
	}
	Expect(k8sClient.Create(ctx, sub)).To(Succeed())
	DeferCleanup(uninstall, namespace)
	return sub
}

// installed waits until the Subscription says it installed the given CSV
// and that CSV has succeeded.
func installed(ctx context.Context, sub *operatorsv1alpha1.Subscription, name string) *operatorsv1alpha1.ClusterServiceVersion {
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sub), sub)).To(Succeed())
		g.Expect(sub.Status.InstalledCSV).To(Equal(name))
	}).Should(Succeed())
	return succeeded(ctx, sub.Namespace, name)
}

// succeeded waits until the CSV of that name in the namespace has
// succeeded.
func succeeded(ctx context.Context, namespace, name string) *operatorsv1alpha1.ClusterServiceVersion {
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "%s: %s", csv.Status.Reason, csv.Status.Message)
	}).Should(Succeed())
	return csv
}

// pendingPlan waits until an InstallPlan for the given CSV waits for
// approval, and returns it.
func pendingPlan(ctx context.Context, namespace, csv string) *operatorsv1alpha1.InstallPlan {
	var plan *operatorsv1alpha1.InstallPlan
	Eventually(ctx, func(g Gomega) {
		plan = nil
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(k8sClient.List(ctx, plans, client.InNamespace(namespace))).To(Succeed())
		for i := range plans.Items {
			if slices.Contains(plans.Items[i].Spec.ClusterServiceVersionNames, csv) {
				plan = &plans.Items[i]
			}
		}
		g.Expect(plan).NotTo(BeNil(), "no InstallPlan for %s", csv)
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseRequiresApproval))
	}).Should(Succeed())
	return plan
}

// approve approves an InstallPlan, as `kubectl patch installplan` would.
func approve(ctx context.Context, plan *operatorsv1alpha1.InstallPlan) {
	patch := client.MergeFrom(plan.DeepCopy())
	plan.Spec.Approved = true
	Expect(k8sClient.Patch(ctx, plan, patch)).To(Succeed())
}

// manager is the operator's Deployment, as OLM made it, once Available.
func manager(ctx context.Context, namespace string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: managerDeployment}, d)).To(Succeed())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(*d.Spec.Replicas))
		g.Expect(d.Status.AvailableReplicas).To(Equal(*d.Spec.Replicas))
	}).Should(Succeed())
	return d
}

// expectManagerGone waits until the operator's Deployment is gone from the
// namespace.
func expectManagerGone(ctx context.Context, namespace string) {
	Eventually(ctx, func() error {
		return k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: managerDeployment}, &appsv1.Deployment{})
	}).Should(MatchError(ContainSubstring("not found")))
}

// uninstall removes the operator as an administrator does: the
// Subscription, then the CSVs; OLM removes the Deployment and the RBAC it
// made for them. The OperatorGroup goes too, so the next spec can target
// any namespace.
//
// It returns once the namespace has no Subscription, InstallPlan or CSV of
// its own left: a Subscription made while the last one's InstallPlan is
// still there (the garbage collector deletes it after its Subscription)
// can take that plan, complete already, for its own and install nothing,
// as CI once saw a reinstall wait for a CSV that never came.
func uninstall(ctx context.Context, namespace string) {
	Expect(client.IgnoreNotFound(k8sClient.DeleteAllOf(ctx, &operatorsv1alpha1.Subscription{}, client.InNamespace(namespace)))).To(Succeed())
	Expect(client.IgnoreNotFound(k8sClient.DeleteAllOf(ctx, &operatorsv1alpha1.ClusterServiceVersion{}, client.InNamespace(namespace)))).To(Succeed())
	Expect(client.IgnoreNotFound(k8sClient.DeleteAllOf(ctx, &operatorsv1alpha1.InstallPlan{}, client.InNamespace(namespace)))).To(Succeed())
	expectManagerGone(ctx, namespace)
	Expect(client.IgnoreNotFound(k8sClient.DeleteAllOf(ctx, &operatorsv1.OperatorGroup{}, client.InNamespace(namespace)))).To(Succeed())
	Eventually(ctx, func(g Gomega) {
		subs, plans, csvs := &operatorsv1alpha1.SubscriptionList{}, &operatorsv1alpha1.InstallPlanList{}, &operatorsv1alpha1.ClusterServiceVersionList{}
		for _, list := range []client.ObjectList{subs, plans, csvs} {
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		}
		g.Expect(subs.Items).To(BeEmpty(), "Subscriptions left")
		g.Expect(plans.Items).To(BeEmpty(), "InstallPlans left")
		for _, csv := range csvs.Items {
			// A copy stands for a CSV of another namespace, and stays.
			g.Expect(csv.Labels).To(HaveKey(copiedFromLabel), "CSV %s left", csv.Name)
		}
	}).Should(Succeed())
}

// copiedFromLabel marks the copies OLM makes of a CSV in the namespaces
// its operator watches.
const copiedFromLabel = "olm.copiedFrom"
