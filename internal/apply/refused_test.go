package apply

import (
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestIgnoreRefused also checks the reason each refusal is counted under,
// and what IgnoreNamespaceTerminating keeps.
func TestIgnoreRefused(t *testing.T) {
	deployments := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	invalid := apierrors.NewInvalid(deployments, "web", field.ErrorList{
		field.Invalid(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "requests"), "2", "must be less than or equal to cpu limit of 1"),
	})
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
	unavailable := apierrors.NewServiceUnavailable("etcd is down")
	pods := schema.GroupResource{Resource: "pods"}
	terminating := apierrors.NewForbidden(pods, "app-immortalpod",
		errors.New("unable to create new content in namespace shop because it is being terminated"))
	terminating.ErrStatus.Details.Causes = append(terminating.ErrStatus.Details.Causes,
		metav1.StatusCause{Type: corev1.NamespaceTerminatingCause, Field: "metadata.namespace", Message: "namespace is being terminated"})
	forbidden := apierrors.NewForbidden(pods, "app-immortalpod", errors.New(`User "system:serviceaccount:seed:op" cannot create resource "pods"`))

	tests := []struct {
		name    string
		err     error
		refused bool
		// terminating is whether every failure is a create in a namespace
		// being deleted; inTerminating whether one is.
		terminating, inTerminating bool
		// reason is the refusal's label in seed_owned_object_refusals_total.
		reason string
	}{
		{name: "no error", err: nil, refused: true, terminating: true},
		{name: "invalid", err: invalid, refused: true, reason: "Invalid"},
		{name: "invalid, wrapped", err: fmt.Errorf("applying Deployment shop/web: %w", invalid), refused: true, reason: "Invalid"},
		{name: "both applies refused", err: errors.Join(fmt.Errorf("applying: %w", invalid), invalid), refused: true, reason: "Invalid"},
		{name: "a joined error wrapped", err: fmt.Errorf("step: %w", errors.Join(invalid, invalid)), refused: true, reason: "Invalid"},
		{name: "one refused, one unavailable", err: errors.Join(invalid, fmt.Errorf("applying Service: %w", unavailable)), refused: false},
		{name: "one refused, one wrapped join with a conflict", err: fmt.Errorf("step: %w", errors.Join(invalid, conflict)), refused: false},
		{name: "a conflict", err: conflict, refused: false},
		{name: "created in a namespace being deleted", err: fmt.Errorf("applying Pod shop/app-immortalpod: %w", terminating), refused: true, terminating: true, inTerminating: true, reason: "NamespaceTerminating"},
		{name: "two backups taken in a namespace being deleted", err: errors.Join(fmt.Errorf("taking backup: %w", terminating), terminating), refused: true, terminating: true, inTerminating: true, reason: "NamespaceTerminating"},
		{name: "one in a namespace being deleted, one invalid", err: fmt.Errorf("step: %w", errors.Join(terminating, invalid)), refused: true, inTerminating: true, reason: "NamespaceTerminating"},
		{name: "one unavailable, one in a namespace being deleted", err: errors.Join(unavailable, fmt.Errorf("applying Service: %w", terminating)), refused: false, inTerminating: true},
		{name: "forbidden by RBAC", err: forbidden, refused: false},
		{name: "a name conflict", err: &NameConflictError{Kind: "Service", Name: "web-service", OwnerKind: "WebServer", OwnerName: "web"}, refused: true, reason: "NameConflict"},
		{name: "a name conflict beside a refusal", err: errors.Join(invalid, &NameConflictError{Kind: "Service"}), refused: true, reason: "NameConflict"},
		{name: "not from the API server", err: errors.New("connection refused"), refused: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.refused {
				g.Expect(IgnoreRefused(tt.err)).To(Succeed())
			} else {
				g.Expect(IgnoreRefused(tt.err)).To(MatchError(tt.err))
			}
			g.Expect(refusalReason(tt.err)).To(Equal(tt.reason))
			g.Expect(IsNamespaceTerminating(tt.err)).To(Equal(tt.inTerminating))
			if tt.terminating {
				g.Expect(IgnoreNamespaceTerminating(tt.err)).To(Succeed())
			} else {
				g.Expect(IgnoreNamespaceTerminating(tt.err)).To(MatchError(tt.err))
			}
		})
	}
}

func TestSummarized(t *testing.T) {
	jobs := schema.GroupKind{Group: "batch", Kind: "Job"}
	// The value as the API server dumps it, several kilobytes for a real
	// pod template.
	template := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "echo", Image: "busybox", Args: []string{"echo", "a: b"}}}}}
	immutable := apierrors.NewInvalid(jobs, "userjob", field.ErrorList{
		field.Invalid(field.NewPath("spec", "template"), fmt.Sprintf("%#v", template), "field is immutable"),
	})
	podUpdate := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "victim-immortalpod", field.ErrorList{
		field.Forbidden(field.NewPath("spec"), "pod updates may not add or remove containers\n  core.PodSpec{\n-  Containers: ..."),
	})
	short := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
		field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0"),
		field.Required(field.NewPath("spec", "selector"), ""),
	})
	unavailable := apierrors.NewServiceUnavailable("etcd is down")

	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "an immutable field's value left out", err: immutable, want: `Job.batch "userjob" is invalid: spec.template: field is immutable`},
		{name: "the diff after a rule left out", err: fmt.Errorf("applying: %w", podUpdate),
			want: `Pod "victim-immortalpod" is invalid: spec: Forbidden: pod updates may not add or remove containers`},
		{name: "short values kept", err: short,
			want: `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0; spec.selector: Required value`},
		{name: "not a refusal", err: unavailable, want: unavailable.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := summarized(tt.err)
			g.Expect(got.Error()).To(Equal(tt.want))
			g.Expect(len(got.Error())).To(BeNumerically("<=", maxRefusal))
			g.Expect(every(got, refused)).To(Equal(every(tt.err, refused)), "a summary is refused as its error is")
		})
	}
}
