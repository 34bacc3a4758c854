package apply

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestNameConflictError(t *testing.T) {
	tests := []struct {
		name string
		err  NameConflictError
		want string
	}{
		{
			name: "someone's object",
			err:  NameConflictError{Kind: "Service", Name: "mine-service", OwnerKind: "WebServer", OwnerName: "mine"},
			want: "Service mine-service already exists and is not managed by WebServer mine, so the operator leaves it alone: " +
				"rename the WebServer, or delete or rename the Service",
		},
		{
			name: "another controller's object",
			err:  NameConflictError{Kind: "Job", Name: "nightly-29000000", OwnerKind: "Echo", OwnerName: "nightly-29000000", ControlledBy: "CronJob nightly"},
			want: "Job nightly-29000000 already exists and belongs to CronJob nightly, so the operator leaves it alone: " +
				"rename the Echo, or delete or rename the Job",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(tt.err.Error()).To(Equal(tt.want))
			g.Expect(FailureReason(&tt.err)).To(Equal(seedv1alpha1.ReasonNameConflict))
		})
	}
	NewWithT(t).Expect(FailureReason(errors.New("timeout"))).To(Equal(seedv1alpha1.ReasonReconcileFailed))
}

func TestReported(t *testing.T) {
	conflict := &NameConflictError{Kind: "Service", Name: "web-service", OwnerKind: "WebServer", OwnerName: "web"}
	other := &NameConflictError{Kind: "Deployment", Name: "web", OwnerKind: "WebServer", OwnerName: "web"}
	ready := func(reason, message string) metav1.Condition {
		return metav1.Condition{Type: seedv1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: message}
	}
	tests := []struct {
		name       string
		conditions []metav1.Condition
		reported   bool
	}{
		{name: "no condition yet", reported: false},
		{name: "another failure", conditions: []metav1.Condition{ready(seedv1alpha1.ReasonReconcileFailed, conflict.Error())}, reported: false},
		{name: "another conflict", conditions: []metav1.Condition{ready(seedv1alpha1.ReasonNameConflict, other.Error())}, reported: false},
		{name: "this conflict", conditions: []metav1.Condition{ready(seedv1alpha1.ReasonNameConflict, conflict.Error())}, reported: true},
		{name: "this conflict among others", conditions: []metav1.Condition{
			ready(seedv1alpha1.ReasonNameConflict, other.Error()+"\n"+conflict.Error()),
		}, reported: true},
		{name: "this conflict, in the condition of what the object was for", conditions: []metav1.Condition{
			ready("Bound", ""),
			{Type: "BackedUp", Status: metav1.ConditionFalse, Reason: "BackupNameConflict", Message: conflict.Error()},
		}, reported: true},
		{name: "another condition's failure", conditions: []metav1.Condition{
			{Type: "BackedUp", Status: metav1.ConditionFalse, Reason: "BackupFailed", Message: conflict.Error()},
		}, reported: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := &seedv1alpha1.WebServer{Status: seedv1alpha1.WebServerStatus{Conditions: tt.conditions}}
			NewWithT(t).Expect(reported(ws, conflict)).To(Equal(tt.reported))
		})
	}
}

func TestHandsChanged(t *testing.T) {
	object := func(labels map[string]string, controller types.UID) *metav1.PartialObjectMetadata {
		o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "web-service", Labels: labels, ResourceVersion: "1"}}
		if controller != "" {
			o.OwnerReferences = []metav1.OwnerReference{{Kind: "WebServer", Name: "web", UID: controller, Controller: ptr.To(true)}}
		}
		return o
	}
	mine := map[string]string{"app": "mine"}
	tests := []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		changed  bool
	}{
		{name: "a new version, same hands", old: object(mine, ""), new: object(mine, ""), changed: false},
		{name: "a controller set", old: object(mine, ""), new: object(mine, "uid-1"), changed: true},
		{name: "a controller removed", old: object(mine, "uid-1"), new: object(mine, ""), changed: true},
		{name: "another controller", old: object(mine, "uid-1"), new: object(mine, "uid-2"), changed: true},
		{name: "labels changed", old: object(mine, "uid-1"), new: object(map[string]string{"app": "other"}, "uid-1"), changed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(handsChanged(tt.old, tt.new)).To(Equal(tt.changed))
		})
	}
}
