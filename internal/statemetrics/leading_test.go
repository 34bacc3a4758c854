package statemetrics

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// A replica that does not lead serves no series, so that a query over
// every replica's counts each resource once.
func TestCollectorServesWhileLeading(t *testing.T) {
	s := runtime.NewScheme()
	if err := seedv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	meta := metav1.ObjectMeta{Namespace: "team-a", Name: "one"}
	reader := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&seedv1alpha1.WebServer{ObjectMeta: meta},
		&seedv1alpha1.Echo{ObjectMeta: meta},
		&seedv1alpha1.ScheduledEcho{ObjectMeta: meta, Spec: seedv1alpha1.ScheduledEchoSpec{Schedule: "@hourly"}},
		&seedv1alpha1.ImmortalContainer{ObjectMeta: meta},
		&seedv1alpha1.DemoVolume{ObjectMeta: meta},
	).Build()
	// The pedantic registry also fails a series the collector does not
	// describe, of any kind.
	for _, tt := range []struct {
		leading bool
		want    int
	}{
		// Per resource: Ready and the generation lag; then a WebServer's
		// six, an Echo's four phases, a ScheduledEcho's active runs,
		// suspended and next run, an ImmortalContainer's pod starts, a
		// DemoVolume's requested bytes, resizing and three phases.
		{leading: true, want: 5*2 + 6 + 4 + 3 + 1 + 5},
		{leading: false, want: 0},
	} {
		c := &Collector{reader: reader, leading: func() bool { return tt.leading }, log: logr.Discard()}
		registry := prometheus.NewPedanticRegistry()
		if err := registry.Register(c); err != nil {
			t.Fatal(err)
		}
		families, err := registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, f := range families {
			got += len(f.GetMetric())
		}
		if got != tt.want {
			t.Errorf("leading %t: %d series, want %d", tt.leading, got, tt.want)
		}
	}
}
