package testenv

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The operator's identity, as config/default deploys it: its ServiceAccount
// in its namespace.
const (
	OperatorNamespace = "seed-operator-system"
	// MetricsReaderRole may get the operator's /metrics.
	MetricsReaderRole = "seed-operator-metrics-reader"
	// OperatorUser is the user the API server knows the operator as.
	OperatorUser = "system:serviceaccount:" + OperatorNamespace + ":" + OperatorServiceAccount
	// OperatorServiceAccount is the ServiceAccount the operator runs as.
	OperatorServiceAccount = "seed-operator-controller-manager"
)

// operatorConfig installs the operator's own RBAC, the ClusterRoles that
// controller-gen writes from the controllers' markers and the leader
// election Role, binds them to the operator's identity and returns a
// config that acts as it. A manager run with this config may do what the
// deployed operator may, and nothing more: a verb the code uses and the
// markers do not grant fails the suite, as it would fail in a cluster.
func operatorConfig(ctx context.Context, env *envtest.Environment, admin client.Client) (*rest.Config, error) {
	managerRole, clusterRole := &rbacv1.ClusterRole{}, &rbacv1.ClusterRole{}
	if err := readRBAC("role.yaml", managerRole); err != nil {
		return nil, err
	}
	if err := readRBAC("cluster_role.yaml", clusterRole); err != nil {
		return nil, err
	}
	leaderElectionRole := &rbacv1.Role{}
	if err := readRBAC("leader_election_role.yaml", leaderElectionRole); err != nil {
		return nil, err
	}
	leaderElectionRole.Namespace = OperatorNamespace
	subject := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: OperatorUser}
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OperatorNamespace}},
		managerRole,
		clusterRoleBinding(managerRole.Name, subject),
		clusterRole,
		clusterRoleBinding(clusterRole.Name, subject),
		leaderElectionRole,
		roleBinding(OperatorNamespace, "Role", leaderElectionRole.Name, subject),
	} {
		if err := admin.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("installing the operator's RBAC: %w", err)
		}
	}
	user, err := env.AddUser(envtest.User{
		Name:   OperatorUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + OperatorNamespace},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding the operator's user: %w", err)
	}
	return user.Config(), nil
}

// ClientAs is a client that acts as the given user, bound in namespace to
// the ClusterRole config/rbac/<roleFile> defines (installed if need be), as
// a cluster administrator would bind a person or a service account.
func (e *Env) ClientAs(ctx context.Context, user, roleFile, namespace string) (client.Client, error) {
	config, err := e.ConfigAs(ctx, user, roleFile, namespace)
	if err != nil {
		return nil, err
	}
	return client.New(config, client.Options{Scheme: e.Client.Scheme()})
}

// ConfigAs is the configuration of a client that acts as ClientAs's does.
func (e *Env) ConfigAs(ctx context.Context, user, roleFile, namespace string) (*rest.Config, error) {
	role := &rbacv1.ClusterRole{}
	if err := readRBAC(roleFile, role); err != nil {
		return nil, err
	}
	if err := client.IgnoreAlreadyExists(e.Client.Create(ctx, role)); err != nil {
		return nil, fmt.Errorf("installing ClusterRole %s: %w", role.Name, err)
	}
	subject := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}
	if err := e.Client.Create(ctx, roleBinding(namespace, "ClusterRole", role.Name, subject)); err != nil {
		return nil, fmt.Errorf("binding ClusterRole %s to %s: %w", role.Name, user, err)
	}
	authenticated, err := e.env.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding user %s: %w", user, err)
	}
	return authenticated.Config(), nil
}

// readRBAC reads one object of config/rbac, as kustomize would take it
// before giving names their prefix.
func readRBAC(file string, into client.Object) error {
	return ReadYAML(filepath.Join(ProjectRoot(), "config", "rbac", file), into)
}

func clusterRoleBinding(role string, subject rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{subject},
	}
}

func roleBinding(namespace, roleKind, role string, subject rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role + "-" + subject.Name, Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: role},
		Subjects:   []rbacv1.Subject{subject},
	}
}

// InstallMetricsRoles installs the roles config/default deploys for the
// metrics endpoint: the one that lets the operator review who scrapes it,
// bound to the operator, and the one a scraper is bound to, under the name
// MetricsReaderToken binds.
func (e *Env) InstallMetricsRoles(ctx context.Context) error {
	review := &rbacv1.ClusterRole{}
	if err := readRBAC("metrics_auth_role.yaml", review); err != nil {
		return err
	}
	reader := &rbacv1.ClusterRole{}
	if err := readRBAC("metrics_reader_role.yaml", reader); err != nil {
		return err
	}
	reader.Name = MetricsReaderRole
	operator := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: OperatorUser}
	for _, obj := range []client.Object{review, clusterRoleBinding(review.Name, operator), reader} {
		if err := e.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("installing the metrics endpoint's RBAC: %w", err)
		}
	}
	return nil
}

// WithoutGrant takes verb on group's resource out of the operator's
// ClusterRole, and returns once the API server refuses the operator that
// verb, with a function that puts it back, which the end of the spec calls
// too.
func (e *Env) WithoutGrant(ctx context.Context, group, resource, verb string) (restore func(context.Context)) {
	GinkgoHelper()
	role := &rbacv1.ClusterRole{}
	Expect(readRBAC("role.yaml", role)).To(Succeed())
	Expect(e.Client.Get(ctx, client.ObjectKeyFromObject(role), role)).To(Succeed())
	granted := role.DeepCopy()
	removed := false
	var rules []rbacv1.PolicyRule
	for _, rule := range role.Rules {
		if !slices.Contains(rule.APIGroups, group) || !slices.Contains(rule.Resources, resource) || !slices.Contains(rule.Verbs, verb) {
			rules = append(rules, rule)
			continue
		}
		removed = true
		// The rule without the verb, and the verb on its other resources.
		kept := rule.DeepCopy()
		kept.Verbs = slices.DeleteFunc(slices.Clone(rule.Verbs), func(v string) bool { return v == verb })
		if len(kept.Verbs) > 0 {
			rules = append(rules, *kept)
		}
		if others := slices.DeleteFunc(slices.Clone(rule.Resources), func(r string) bool { return r == resource }); len(others) > 0 {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: rule.APIGroups, Resources: others, Verbs: []string{verb}})
		}
	}
	Expect(removed).To(BeTrue(), "the operator's ClusterRole does not grant %s on %s in %q", verb, resource, group)
	role.Rules = rules
	Expect(e.Client.Update(ctx, role)).To(Succeed())
	restore = func(ctx context.Context) {
		current := &rbacv1.ClusterRole{}
		Expect(e.Client.Get(ctx, client.ObjectKeyFromObject(granted), current)).To(Succeed())
		current.Rules = granted.Rules
		Expect(e.Client.Update(ctx, current)).To(Succeed())
	}
	DeferCleanup(restore)
	res, sub, _ := strings.Cut(resource, "/")
	Eventually(ctx, func(g Gomega) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: OperatorUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: group, Resource: res, Subresource: sub, Verb: verb, Namespace: "default",
			},
		}}
		g.Expect(e.Client.Create(ctx, review)).To(Succeed())
		g.Expect(review.Status.Allowed).To(BeFalse())
	}).Should(Succeed())
	return restore
}
