package testenv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Namespace creates a namespace with a generated name, so that specs do not
// see each other's objects, and returns its name.
func (e *Env) Namespace(ctx context.Context, prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(e.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// RestrictedNamespace creates a namespace with a generated name and the
// given annotations that enforces the restricted Pod Security Standard, as
// a careful administrator's would, and deletes it after the spec.
func RestrictedNamespace(ctx context.Context, c client.Client, prefix string, annotations map[string]string) string {
	return Namespace(ctx, c, prefix, "restricted", annotations)
}

// Namespace is RestrictedNamespace's, enforcing the given level of the Pod
// Security Standards instead.
func Namespace(ctx context.Context, c client.Client, prefix, level string, annotations map[string]string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: prefix + "-",
		Annotations:  annotations,
		Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": level,
			"pod-security.kubernetes.io/warn":    level,
		},
	}}
	Expect(c.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(c.Delete(ctx, ns))).To(Succeed())
	})
	return ns.Name
}

// Update changes obj as a user would: it reads the latest version, mutates
// it and writes it back, again when the operator wrote its status in
// between.
func Update[T client.Object](ctx context.Context, c client.Client, obj T, mutate func(T)) {
	key := client.ObjectKeyFromObject(obj)
	Eventually(ctx, func(g Gomega) {
		g.Expect(c.Get(ctx, key, obj)).To(Succeed())
		mutate(obj)
		g.Expect(c.Update(ctx, obj)).To(Succeed())
	}).Should(Succeed())
}

// EditAs changes obj as another tool would: a strategic merge patch, as
// kubectl sends, under that tool's field manager (kubectl set env writes as
// "kubectl-set", kubectl patch as "kubectl-patch"). The tool then owns what
// it wrote, which server-side apply alone never takes away from it.
func EditAs(ctx context.Context, c client.Client, obj client.Object, manager, patch string) {
	Expect(c.Patch(ctx, obj, client.RawPatch(types.StrategicMergePatchType, []byte(patch)), client.FieldOwner(manager))).To(Succeed())
}

// ExpectCondition waits until obj's condition has the given status and
// reason, and describes its current generation, as does its status.
func ExpectCondition(ctx context.Context, c client.Client, obj kube.Object, conditionType string, status metav1.ConditionStatus, reason string) {
	key := client.ObjectKeyFromObject(obj)
	Eventually(ctx, func(g Gomega) {
		g.Expect(c.Get(ctx, key, obj)).To(Succeed())
		condition := meta.FindStatusCondition(obj.GetConditions(), conditionType)
		g.Expect(condition).NotTo(BeNil(), "condition %s", conditionType)
		g.Expect(condition.Status).To(Equal(status), "condition %s: %s", conditionType, condition.Message)
		g.Expect(condition.Reason).To(Equal(reason), "condition %s: %s", conditionType, condition.Message)
		g.Expect(condition.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}).Should(Succeed())
}

// ExpectEvent waits for an event about obj with the given reason, whose note
// mentions the given text, and which matches the further matchers given.
func ExpectEvent(ctx context.Context, c client.Client, obj client.Object, kind, reason, note string, further ...gomegatypes.GomegaMatcher) {
	Eventually(ctx, func(g Gomega) {
		events := &eventsv1.EventList{}
		g.Expect(c.List(ctx, events, client.InNamespace(obj.GetNamespace()))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(And(append([]gomegatypes.GomegaMatcher{
			HaveField("Regarding.Name", obj.GetName()),
			HaveField("Regarding.Kind", kind),
			HaveField("Reason", reason),
			HaveField("Note", ContainSubstring(note)),
		}, further...)...)))
	}).Should(Succeed())
}

// EventReasons are the reasons of the events recorded so far on obj.
func EventReasons(ctx context.Context, c client.Client, obj client.Object) []string {
	events := &eventsv1.EventList{}
	Expect(c.List(ctx, events, client.InNamespace(obj.GetNamespace()))).To(Succeed())
	var reasons []string
	for _, e := range events.Items {
		if e.Regarding.UID == obj.GetUID() {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// EventCount is how many times an event of reason was recorded on obj so
// far, as the API server holds them: the recorder folds repeats into one
// Event's series, and counts those past the second only in its memory
// until it next refreshes the series, so 2 means "more than once".
func EventCount(ctx context.Context, g Gomega, c client.Client, obj client.Object, reason string) int32 {
	events := &eventsv1.EventList{}
	g.Expect(c.List(ctx, events, client.InNamespace(obj.GetNamespace()))).To(Succeed())
	var n int32
	for _, e := range events.Items {
		if e.Regarding.UID == obj.GetUID() && e.Reason == reason {
			n += Occurrences(e)
		}
	}
	return n
}

// Occurrences is how many times an event happened: the recorder folds
// repeats into a series.
func Occurrences(e eventsv1.Event) int32 {
	if e.Series != nil {
		return e.Series.Count
	}
	return 1
}

// Get waits until obj exists and reads it.
func Get(ctx context.Context, c client.Client, key client.ObjectKey, obj client.Object) {
	Eventually(ctx, func() error { return c.Get(ctx, key, obj) }).Should(Succeed())
}

// ExpectCachedUpToDate waits until the Applier, reading from cache (the
// manager's client), finds the object desired names up to date: the
// cache's transform may have replaced its spec with a digest, which must
// give the answer the whole object gives.
func ExpectCachedUpToDate(ctx context.Context, cache client.Reader, desired apply.ApplyConfiguration, empty client.Object) {
	key := client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}
	Eventually(ctx, func(g Gomega) {
		g.Expect(cache.Get(ctx, key, empty)).To(Succeed())
		g.Expect(apply.UpToDate(desired, empty)).To(BeTrue(), "the cached %s is as applied: no apply is sent", key)
	}).Should(Succeed())
}

// ControllerReference matches the owner reference that
// kube.ControllerReference gives an owned object's apply configuration:
// to the custom resource of kind, name and uid, its controller, blocking
// its deletion.
func ControllerReference(kind, name string, uid types.UID) gomegatypes.GomegaMatcher {
	return And(
		HaveField("Kind", HaveValue(Equal(kind))),
		HaveField("APIVersion", HaveValue(Equal("seed.example.com/v1alpha1"))),
		HaveField("Name", HaveValue(Equal(name))),
		HaveField("UID", HaveValue(Equal(uid))),
		HaveField("Controller", HaveValue(BeTrue())),
		HaveField("BlockOwnerDeletion", HaveValue(BeTrue())),
	)
}
