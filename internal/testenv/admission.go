package testenv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DenyOperatorWrites makes the API server refuse, with message, every
// create and update the operator makes to objects of obj's kind in obj's
// namespace, until the spec ends: a ValidatingAdmissionPolicy, as a cluster
// administrator could set. It returns once the operator's own writes are
// refused.
func (e *Env) DenyOperatorWrites(ctx context.Context, obj client.Object, message string) {
	gvk, err := e.Client.GroupVersionKindFor(obj)
	Expect(err).NotTo(HaveOccurred())
	mapping, err := e.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	Expect(err).NotTo(HaveOccurred())

	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "deny-operator-"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups:   []string{gvk.Group},
							APIVersions: []string{gvk.Version},
							Resources:   []string{mapping.Resource.Resource},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "request.userInfo.username != '" + OperatorUser + "'",
				Message:    message,
			}},
		},
	}
	Expect(e.Client.Create(ctx, policy)).To(Succeed())
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{"kubernetes.io/metadata.name": obj.GetNamespace()},
				},
			},
		},
	}
	Expect(e.Client.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(e.Client.Delete(ctx, binding)).To(Succeed())
		Expect(e.Client.Delete(ctx, policy)).To(Succeed())
	})

	// The API server loads policies in the background.
	probe, _ := obj.DeepCopyObject().(client.Object)
	Eventually(ctx, func(g Gomega) {
		err := e.Manager.GetClient().Patch(ctx, probe, client.RawPatch(types.MergePatchType, []byte("{}")), client.DryRunAll)
		g.Expect(err).To(MatchError(ContainSubstring(message)))
	}).Should(Succeed())
}
