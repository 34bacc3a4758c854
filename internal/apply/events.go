package apply

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// changeEvents are the events of the applies made for one owner in one
// reconcile, not yet recorded: one per reason, naming every object.
type changeEvents struct {
	owner  kube.Object
	events []*changeEvent
}

type changeEvent struct {
	reason, action string
	// related is the first object the event names.
	related client.Object
	objects []string
}

type changeEventsKey struct{}

// GatherEvents makes the applies done for owner with the returned context
// record their events together, when record is called: one event for each
// reason, naming every object it concerns ("Created Deployment web,
// Service web-service"), not one each. Events are API writes, and a
// resource made of several objects is made once.
func (a *Applier) GatherEvents(ctx context.Context, owner kube.Object) (_ context.Context, record func()) {
	gathered := &changeEvents{owner: owner}
	return context.WithValue(ctx, changeEventsKey{}, gathered), func() {
		for _, e := range gathered.events {
			a.Recorder.Eventf(owner, e.related, corev1.EventTypeNormal, e.reason, e.action, "%s %s",
				e.reason, truncate(strings.Join(e.objects, ", "), maxEventNote-len(e.reason)-1))
		}
		gathered.events = nil
	}
}

// gather keeps the event of a change to live for the owner's gathered
// events, and tells whether ctx gathers them.
func gather(ctx context.Context, owner kube.Object, live client.Object, kind, reason, action string) bool {
	gathered, ok := ctx.Value(changeEventsKey{}).(*changeEvents)
	if !ok || gathered.owner.GetUID() != owner.GetUID() {
		return false
	}
	object := kind + " " + live.GetName()
	for _, e := range gathered.events {
		if e.reason == reason {
			e.objects = append(e.objects, object)
			return true
		}
	}
	gathered.events = append(gathered.events, &changeEvent{reason: reason, action: action, related: live, objects: []string{object}})
	return true
}
