package apply

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

func TestGatherEvents(t *testing.T) {
	owner := func(uid string) kube.Object {
		return &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: types.UID(uid)}}
	}
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-service"}}
	autoscaler := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	type change struct {
		owner            string
		live             client.Object
		kind             string
		created, changed bool
	}
	tests := []struct {
		name    string
		gather  bool
		changes []change
		// want are the events recorded, as the fake recorder writes them,
		// before record is called and after.
		wantBefore, wantAfter []string
	}{
		{
			name:   "one event per reason, naming each object in the order made",
			gather: true,
			changes: []change{
				{owner: "a", live: deployment, kind: "Deployment", created: true},
				{owner: "a", live: service, kind: "Service", created: true},
				{owner: "a", live: autoscaler, kind: "HorizontalPodAutoscaler", changed: true},
			},
			wantAfter: []string{
				"Normal Created Created Deployment web, Service web-service",
				"Normal Updated Updated HorizontalPodAutoscaler web",
			},
		},
		{
			name:      "nothing changed, no event",
			gather:    true,
			changes:   []change{{owner: "a", live: deployment, kind: "Deployment"}},
			wantAfter: nil,
		},
		{
			name:   "another owner's change is recorded at once",
			gather: true,
			changes: []change{
				{owner: "a", live: deployment, kind: "Deployment", created: true},
				{owner: "b", live: service, kind: "Service", created: true},
			},
			wantBefore: []string{"Normal Created Created Service web-service"},
			wantAfter:  []string{"Normal Created Created Deployment web"},
		},
		{
			name:   "without GatherEvents, each change is an event at once",
			gather: false,
			changes: []change{
				{owner: "a", live: deployment, kind: "Deployment", created: true},
				{owner: "a", live: service, kind: "Service", created: true},
			},
			wantBefore: []string{"Normal Created Created Deployment web", "Normal Created Created Service web-service"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			recorder := events.NewFakeRecorder(10)
			a := &Applier{Recorder: recorder}
			ctx, record := context.Background(), func() {}
			if tt.gather {
				ctx, record = a.GatherEvents(ctx, owner("a"))
			}
			for _, c := range tt.changes {
				a.recordChange(ctx, owner(c.owner), c.live, c.kind, c.created, c.changed, false, nil)
			}
			g.Expect(drain(recorder)).To(Equal(tt.wantBefore))
			record()
			g.Expect(drain(recorder)).To(Equal(tt.wantAfter))
			record()
			g.Expect(drain(recorder)).To(BeEmpty(), "recorded twice")
		})
	}
}

// drain reads the events the fake recorder holds.
func drain(recorder *events.FakeRecorder) []string {
	var got []string
	for {
		select {
		case e := <-recorder.Events:
			got = append(got, e)
		default:
			return got
		}
	}
}
