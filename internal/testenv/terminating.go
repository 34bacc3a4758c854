package testenv

import (
	"context"
	"maps"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NamespaceTerminating is a spec of what a resource does when its
// namespace is being deleted and the namespace controller takes one of its
// objects before it: it tries to make the object again, is refused, and
// stops there, with no retry, no event and no status write; and the
// operator sends nothing more for it, nor for the others of its kind in
// the namespace, as the namespace controller takes their objects too.
// envtest runs no namespace controller, so the namespace stays Terminating
// with the owner in it, and the spec removes the objects itself.
type NamespaceTerminating struct {
	// Owner is the custom resource, settled: nothing it would write is
	// pending.
	Owner client.Object
	// Kind is the kind of the object the owner makes again.
	Kind string
	// Remove deletes that object, as the namespace controller would.
	Remove func()
	// More, if set, deletes more objects of the owner's or of other
	// resources of its kind in the namespace, once the first is refused.
	More func()
}

// Expect deletes the owner's namespace, removes the object, and checks
// that the owner's create is refused once, and that no other create, no
// write to the owner and no event follows, even after More.
func (n NamespaceTerminating) Expect(ctx context.Context, c client.Client) {
	GinkgoHelper()
	anyKind := map[string]string{"reason": "NamespaceTerminating"}
	anyKindBefore := Counted("seed_owned_object_refusals_total", anyKind)
	refused := maps.Clone(anyKind)
	refused["kind"] = n.Kind
	refusedBefore := Counted("seed_owned_object_refusals_total", refused)
	// Events are the operator's only POSTs (its objects are applied), and
	// the namespace refuses them.
	events := map[string]string{"method": "POST", "code": "403"}
	eventsBefore := Counted("rest_client_requests_total", events)
	owner := n.Owner.DeepCopyObject().(client.Object)
	Expect(c.Get(ctx, client.ObjectKeyFromObject(n.Owner), owner)).To(Succeed())

	Expect(c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: owner.GetNamespace()}})).To(Succeed())
	n.Remove()

	Eventually(ctx, func() float64 { return Counted("seed_owned_object_refusals_total", refused) }).
		Should(BeNumerically(">", refusedBefore), "the %s made again, in the namespace being deleted", n.Kind)
	if n.More != nil {
		n.More()
	}
	// The object's last update and its deletion may each bring a try, and
	// More brings others, none of which may be sent. A failure returned to
	// the workqueue would come back within milliseconds, then ever more
	// slowly, until the namespace is gone. The refusals count the creates
	// sent, which the suite's other controllers do not make here.
	Consistently(ctx, func(g Gomega) {
		g.Expect(Counted("seed_owned_object_refusals_total", anyKind)).To(Equal(anyKindBefore+1), "tried again")
		now := n.Owner.DeepCopyObject().(client.Object)
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(owner), now)).To(Succeed())
		g.Expect(now.GetResourceVersion()).To(Equal(owner.GetResourceVersion()), "the owner written to")
	}).WithTimeout(3 * time.Second).Should(Succeed())
	Expect(Counted("rest_client_requests_total", events)).To(Equal(eventsBefore), "events refused in the namespace being deleted")
}
