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
	reader := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}},
		&seedv1alpha1.Echo{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "hello"}},
	).Build()
	for _, tt := range []struct {
		leading bool
		want    int
	}{
		// Per resource: Ready and the generation lag; six series of a
		// WebServer's own, four phases of an Echo.
		{leading: true, want: 2 + 6 + 2 + 4},
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
