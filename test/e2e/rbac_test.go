//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// The envtest suites run the controllers as the operator's user, with the
// RBAC its markers generate, so a verb the code uses and the markers do not
// grant fails them. The other way round is proven here: after the whole
// end-to-end suite, every verb its RBAC grants on every resource must have
// been used by the operator, as the API server's audit log of the run
// records; and no rule may be a wildcard.

// grant is one verb on one resource of one API group; a subresource is
// written resource/subresource, as RBAC writes it.
type grant struct{ group, resource, verb string }

func (g grant) String() string {
	group := g.group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s %s/%s", g.verb, group, g.resource)
}

// implied says why the operator needs a grant that no request of its own in
// the audit log shows (the API server checks it beside a request the log
// records under another verb, or the path is rare), or "" when nothing
// does. All but the list are shown needed by envtest specs that take each
// away: the WebServer suite's grants specs, and the DemoVolume suite's
// adoption of a retained claim, its spec of a backup's name taken, and
// its grants specs.
func implied(g grant, used map[grant]bool) string {
	switch {
	case g.verb == "create" && used[grant{g.group, g.resource, "patch"}]:
		return "a server-side apply creates a missing object, which the API server authorizes as create"
	case g == grant{"", "persistentvolumeclaims", "delete"}:
		return "OwnerReferencesPermissionEnforcement asks for delete when a DemoVolume adopts its retained claim, setting an owner reference on it"
	case g.verb == "update" && g.group == seedv1alpha1.GroupVersion.Group && strings.HasSuffix(g.resource, "/finalizers"):
		return "OwnerReferencesPermissionEnforcement asks for update on the owner's finalizers when an owned object blocks its deletion"
	case g == grant{seedv1alpha1.GroupVersion.Group, "demovolumes", "patch"}:
		return "the operator removes the finalizer releases up to 0.3.1 gave every DemoVolume, which only the OLM suite's upgrade from 0.3.1 meets; " +
			"the DemoVolume suite's spec of that finalizer fails without the grant"
	case g == grant{seedv1alpha1.GroupVersion.Group, "demovolumes", "get"}, g == grant{"batch", "jobs", "get"}:
		return "kube.SetFinalizer reads a DemoVolume or a Job again after a conflict"
	case g == grant{"", "nodes/stats", "get"}:
		return "the kubelet authorizes the operator's reads of its summary API, made on the kubelet's own port, as get on nodes/stats: " +
			"the API server's audit log never sees them; the autoGrow spec fails without the grant"
	case g == grant{"snapshot.storage.k8s.io", "volumesnapshots", "get"}:
		return "a backup's name taken by a VolumeSnapshot that is not the DemoVolume's is read from the API server, as the cache holds only the operator's"
	case g.verb == "list" && used[grant{g.group, g.resource, "watch"}]:
		return "an informer lists with a watch where the API server streams lists, with a list where it does not"
	}
	return ""
}

// used reads the grants the API server authorized for user since the
// suite began.
func used(a testenv.AuditLog, user string) map[grant]bool {
	grants := map[grant]bool{}
	for _, event := range a.Events(user) {
		if event.Annotations["authorization.k8s.io/decision"] != "allow" {
			continue
		}
		resource := event.ObjectRef.Resource
		if event.ObjectRef.Subresource != "" {
			resource += "/" + event.ObjectRef.Subresource
		}
		grants[grant{event.ObjectRef.APIGroup, resource, event.Verb}] = true
	}
	return grants
}

// granted is every grant of the Roles and ClusterRoles bound to the
// operator's ServiceAccount by name, and the rules among them that are
// wildcards.
func granted(ctx context.Context) (map[grant]bool, []string) {
	isOperator := func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Name == testenv.OperatorServiceAccount && s.Namespace == operatorNamespace
	}
	var rules []rbacv1.PolicyRule
	addRole := func(ref rbacv1.RoleRef, namespace string) {
		if ref.Kind == "ClusterRole" {
			role := &rbacv1.ClusterRole{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ref.Name}, role)).To(Succeed())
			rules = append(rules, role.Rules...)
			return
		}
		role := &rbacv1.Role{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ref.Name, Namespace: namespace}, role)).To(Succeed())
		rules = append(rules, role.Rules...)
	}
	clusterBindings := &rbacv1.ClusterRoleBindingList{}
	Expect(k8sClient.List(ctx, clusterBindings)).To(Succeed())
	for _, b := range clusterBindings.Items {
		if slices.ContainsFunc(b.Subjects, isOperator) {
			addRole(b.RoleRef, "")
		}
	}
	bindings := &rbacv1.RoleBindingList{}
	Expect(k8sClient.List(ctx, bindings)).To(Succeed())
	for _, b := range bindings.Items {
		if slices.ContainsFunc(b.Subjects, isOperator) {
			addRole(b.RoleRef, b.Namespace)
		}
	}
	Expect(rules).NotTo(BeEmpty(), "no Role or ClusterRole is bound to the operator's ServiceAccount")

	grants := map[grant]bool{}
	var wildcards []string
	for _, rule := range rules {
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				for _, verb := range rule.Verbs {
					if group == rbacv1.APIGroupAll || resource == rbacv1.ResourceAll || verb == rbacv1.VerbAll {
						wildcards = append(wildcards, rule.String())
					}
					grants[grant{group, resource, verb}] = true
				}
			}
		}
	}
	return grants, wildcards
}

// expectEveryGrantUsed fails on a wildcard rule, and on a grant the
// operator did not use since audit began and that nothing implies.
func expectEveryGrantUsed(ctx context.Context, audit testenv.AuditLog) {
	grants, wildcards := granted(ctx)
	Expect(wildcards).To(BeEmpty(), "wildcard rules bound to the operator")
	usedGrants := used(audit, testenv.OperatorUser)
	Expect(usedGrants).NotTo(BeEmpty(), "the audit log has no request of %s", testenv.OperatorUser)
	var unused []string
	for g := range grants {
		if !usedGrants[g] && implied(g, usedGrants) == "" {
			unused = append(unused, g.String())
		}
	}
	slices.Sort(unused)
	Expect(unused).To(BeEmpty(), "granted to the operator, and not used by it in the whole end-to-end suite: remove them from its RBAC (the +kubebuilder:rbac markers, config/rbac)")
}

// wholeSuite tells whether every spec of the suite is to run, so that what
// the operator did is all it does.
func wholeSuite() bool {
	suite, _ := GinkgoConfiguration()
	return len(suite.FocusStrings) == 0 && len(suite.SkipStrings) == 0 && len(suite.FocusFiles) == 0 &&
		len(suite.SkipFiles) == 0 && suite.LabelFilter == ""
}
