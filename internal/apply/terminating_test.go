package apply

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// failingList is a cache whose lists fail.
type failingList struct{ client.Reader }

func (failingList) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("cache not synced")
}

func TestTerminating(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := seedv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	webServer := func(namespace, name string) *seedv1alpha1.WebServer {
		return &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name, UID: types.UID(namespace + "/" + name),
		}}
	}
	refused, neighbour, elsewhere := webServer("going", "web"), webServer("going", "other"), webServer("staying", "web")
	cached := fake.NewClientBuilder().WithScheme(scheme).WithObjects(refused, neighbour, elsewhere).Build()
	refusal := errors.New("refused: the namespace is being deleted")

	tests := []struct {
		name      string
		cache     client.Reader
		after     time.Duration
		wantKnown map[*seedv1alpha1.WebServer]bool
	}{
		{
			name:      "the owner refused and those of its kind in its namespace",
			cache:     cached,
			wantKnown: map[*seedv1alpha1.WebServer]bool{refused: true, neighbour: true, elsewhere: false},
		},
		{
			name:      "only the owner refused when the cache cannot list",
			cache:     failingList{},
			wantKnown: map[*seedv1alpha1.WebServer]bool{refused: true, neighbour: false, elsewhere: false},
		},
		{
			name:      "still known a while after",
			cache:     cached,
			after:     terminatingTTL - time.Second,
			wantKnown: map[*seedv1alpha1.WebServer]bool{refused: true, neighbour: true, elsewhere: false},
		},
		{
			name:      "forgotten after a while",
			cache:     cached,
			after:     terminatingTTL + time.Second,
			wantKnown: map[*seedv1alpha1.WebServer]bool{refused: false, neighbour: false, elsewhere: false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			clock := clocktesting.NewFakeClock(time.Now())
			known := newTerminating(clock)
			known.learn(t.Context(), tt.cache, scheme, refused, refusal)
			clock.Step(tt.after)
			for owner, want := range tt.wantKnown {
				if want {
					g.Expect(known.refusal(owner)).To(MatchError(refusal), owner.Name)
				} else {
					g.Expect(known.refusal(owner)).To(Succeed(), owner.Name)
				}
			}
		})
	}
}
