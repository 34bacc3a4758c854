package testenv

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// userManager is the field manager the objects in a resource's way are
// made with: someone else's, as kubectl create writes.
const userManager = "kubectl-create"

// NameConflict is a spec of the rule that the operator never touches an
// object it did not make: theirs, made by someone else with the name that
// owner would give one of its objects, before owner is created.
type NameConflict struct {
	// Theirs is the object in the way, as it is to be created.
	Theirs client.Object
	// Owner returns a new custom resource that wants Theirs' name.
	Owner func() kube.Object
	// OwnerKind is Owner's kind, as events name it.
	OwnerKind string
	// Start, when set, brings a created owner to where it wants Theirs'
	// name, as a controller envtest does not run would (a claim bound,
	// for a DemoVolume's backup).
	Start func(owner kube.Object)
	// Condition and Reason are the owner's condition that reports the
	// conflict and its reason: Ready and NameConflict unless set.
	Condition, Reason string
	// Free, when set, lets an object be deleted, Theirs or one collected:
	// it removes what holds it (such as a claim's protection finalizer,
	// which no controller removes in envtest).
	Free func(client.Object)
	// Collect lists the kinds of the owner's other objects, which the
	// garbage collector deletes after it in a cluster, and the spec
	// deletes in envtest, which runs none.
	Collect []client.ObjectList
}

// Expect checks that Theirs stays byte-for-byte as it was (the same
// resource version and content) while the owner's Condition reports the
// conflict, with one warning event, and after the owner is deleted; and
// that once Theirs is deleted, an owner in the conflict makes its own
// object at once.
func (n NameConflict) Expect(ctx context.Context, c client.Client) {
	if n.Condition == "" {
		n.Condition, n.Reason = seedv1alpha1.ConditionReady, seedv1alpha1.ReasonNameConflict
	}
	theirs := n.Theirs.DeepCopyObject().(client.Object)
	Expect(c.Create(ctx, theirs, client.FieldOwner(userManager))).To(Succeed())
	key := client.ObjectKeyFromObject(theirs)

	gvk, err := apiutil.GVKForObject(theirs, c.Scheme())
	Expect(err).NotTo(HaveOccurred())
	refusals := func() float64 {
		return Counted("seed_owned_object_refusals_total", map[string]string{"kind": gvk.Kind, "reason": seedv1alpha1.ReasonNameConflict})
	}
	refusedBefore := refusals()

	By("leaving their object exactly as it is while the resource reports the conflict")
	owner := n.createInConflict(ctx, c, theirs.GetName())
	n.expectUnchanged(ctx, c, theirs)
	n.expectOneWarning(ctx, c, owner)
	Expect(refusals()).To(BeNumerically(">", refusedBefore), "the refusal counted")

	By("leaving their object when the resource is deleted")
	Expect(c.Delete(ctx, owner)).To(Succeed())
	Eventually(ctx, func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(owner), owner))
	}).Should(BeTrue())
	n.expectUnchanged(ctx, c, theirs)
	n.collect(ctx, c, owner)

	By("making its own object once theirs is deleted")
	owner = n.createInConflict(ctx, c, theirs.GetName())
	// Once the owner is quiet, only the watch of the conflict can bring it
	// back.
	n.expectUnchanged(ctx, c, theirs)
	n.delete(ctx, c, theirs)
	Eventually(ctx, func(g Gomega) {
		own := n.Theirs.DeepCopyObject().(client.Object)
		g.Expect(c.Get(ctx, key, own)).To(Succeed())
		g.Expect(metav1.IsControlledBy(own, owner)).To(BeTrue(), "the resource's own object")
	}).WithTimeout(10 * time.Second).Should(Succeed())
	Eventually(ctx, func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(owner), owner)).To(Succeed())
		condition := meta.FindStatusCondition(owner.GetConditions(), n.Condition)
		g.Expect(condition).NotTo(BeNil())
		g.Expect(condition.Reason).NotTo(Equal(n.Reason))
	}).Should(Succeed())
}

// collect deletes the objects a deleted owner controlled, as the garbage
// collector would.
func (n NameConflict) collect(ctx context.Context, c client.Client, owner client.Object) {
	for _, list := range n.Collect {
		Expect(c.List(ctx, list, client.InNamespace(owner.GetNamespace()))).To(Succeed())
		Expect(meta.EachListItem(list, func(item runtime.Object) error {
			if obj, _ := item.(client.Object); metav1.IsControlledBy(obj, owner) {
				n.delete(ctx, c, obj)
			}
			return nil
		})).To(Succeed())
	}
}

// delete frees obj (Free) and deletes it, unless the operator already
// did (a DemoVolume's claim, with reclaimPolicy Delete).
func (n NameConflict) delete(ctx context.Context, c client.Client, obj client.Object) {
	if n.Free != nil {
		before, _ := obj.DeepCopyObject().(client.Object)
		n.Free(obj)
		Expect(client.IgnoreNotFound(c.Patch(ctx, obj, client.MergeFrom(before)))).To(Succeed())
	}
	Expect(client.IgnoreNotFound(c.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)))).To(Succeed())
}

// createInConflict creates the owner and waits until it reports the
// conflict, naming the object and what to do.
func (n NameConflict) createInConflict(ctx context.Context, c client.Client, name string) kube.Object {
	owner := n.Owner()
	Expect(c.Create(ctx, owner)).To(Succeed())
	if n.Start != nil {
		n.Start(owner)
	}
	ExpectCondition(ctx, c, owner, n.Condition, metav1.ConditionFalse, n.Reason)
	condition := meta.FindStatusCondition(owner.GetConditions(), n.Condition)
	Expect(condition.Message).To(And(ContainSubstring(name), ContainSubstring("rename the "+n.OwnerKind), ContainSubstring("delete or rename")))
	return owner
}

// expectUnchanged checks, for a while, that their object is as it was.
func (n NameConflict) expectUnchanged(ctx context.Context, c client.Client, theirs client.Object) {
	Consistently(ctx, func(g Gomega) {
		now := n.Theirs.DeepCopyObject().(client.Object)
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(theirs), now)).To(Succeed())
		g.Expect(now).To(Equal(theirs))
	}).WithTimeout(3 * time.Second).Should(Succeed())
}

// expectOneWarning checks that the conflict is said once: one warning
// event, recorded once (its occurrences, which the recorder folds into a
// series), not once per reconcile.
func (n NameConflict) expectOneWarning(ctx context.Context, c client.Client, owner client.Object) {
	Eventually(ctx, func(g Gomega) {
		events := &eventsv1.EventList{}
		g.Expect(c.List(ctx, events, client.InNamespace(owner.GetNamespace()))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(And(
			HaveField("Regarding.UID", owner.GetUID()), HaveField("Reason", seedv1alpha1.ReasonNameConflict),
			HaveField("Type", corev1.EventTypeWarning),
		)))
	}).Should(Succeed())
	Consistently(ctx, func(g Gomega) int32 { return EventCount(ctx, g, c, owner, seedv1alpha1.ReasonNameConflict) }).
		WithTimeout(2 * time.Second).Should(BeEquivalentTo(1))
}
