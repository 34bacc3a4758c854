//go:build e2e && chaos

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// throttleOperator makes the API server answer 429 to the operator's
// writes and reads of the objects it manages whenever a few are in flight,
// until the spec ends: a flow schema sends them to a priority level with
// a tiny share of the server's concurrency, which rejects rather than
// queues. Two shares of the defaults' 245 are five seats of the API
// server's 600: one share (three seats) throttled so hard that 120
// resources took three of the four minutes the spec allows, too close to
// fail on a slow day; with five the operator's hundred-odd reconciles in
// flight still meet hundreds of 429s.
//
// Left at their usual level: lists and watches (a list of every object
// needs more seats than the level has, and is refused as long as writes
// hold any, so the informers would never catch up after the outages of
// the specs before, which CI found); Lease renewals and the metrics
// endpoint's reviews (a renewal refused for long would be another fault);
// and events, which client-go sends each from a goroutine of its own, on
// its own schedule, and creates under names the audit log does not show,
// so that the spec could not tell one event's retry from the next event.
func throttleOperator(ctx context.Context) {
	const name = "seed-chaos-throttle"
	level := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](2),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	schema := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name},
			// Before the built-in schema for service accounts.
			MatchingPrecedence:  500,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{
					Kind: flowcontrolv1.SubjectKindServiceAccount,
					ServiceAccount: &flowcontrolv1.ServiceAccountSubject{
						Name: testenv.OperatorServiceAccount, Namespace: testenv.OperatorNamespace,
					},
				}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{
					throttled([]string{seedv1alpha1.GroupVersion.Group, "apps", "batch"}, flowcontrolv1.ResourceAll),
					throttled([]string{""}, "pods", "services", "persistentvolumeclaims"),
				},
			}},
		},
	}
	for _, obj := range []client.Object{level, schema} {
		Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		DeferCleanup(k8sClient.Delete, obj)
	}
	// The API server has taken the schema in once it says whether its
	// priority level exists.
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(schema), schema)).To(Succeed())
		g.Expect(schema.Status.Conditions).To(ContainElement(And(
			HaveField("Type", flowcontrolv1.FlowSchemaConditionType(flowcontrolv1.FlowSchemaConditionDangling)),
			HaveField("Status", flowcontrolv1.ConditionFalse),
		)))
	}).Should(Succeed())
}

// throttled is a rule for the operator's reads and writes of resources in
// groups, in every namespace.
func throttled(groups []string, resources ...string) flowcontrolv1.ResourcePolicyRule {
	return flowcontrolv1.ResourcePolicyRule{
		Verbs:      []string{"get", "create", "update", "patch", "delete"},
		APIGroups:  groups,
		Resources:  resources,
		Namespaces: []string{flowcontrolv1.NamespaceEvery},
	}
}

// throttledRequests is how many of a replica's requests the API server
// answered 429.
func throttledRequests(m testenv.Metrics) float64 {
	return m.Sum("rest_client_requests_total", map[string]string{"code": "429"})
}
