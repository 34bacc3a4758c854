package statemetrics

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// BenchmarkScrape measures a scrape of the series of 1000 resources, 200
// of each kind, with their Ready condition, gathered and encoded as the
// metrics endpoint does. The reader is the fake client, which copies each
// object on a list where the cache does not: the figure is an upper bound.
func BenchmarkScrape(b *testing.B) {
	const perKind = 200
	s := runtime.NewScheme()
	if err := seedv1alpha1.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	ready := []metav1.Condition{{Type: seedv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready", ObservedGeneration: 1}}
	objs := make([]client.Object, 0, 5*perKind)
	for i := range perKind {
		meta := metav1.ObjectMeta{Namespace: fmt.Sprintf("team-%d", i%10), Name: fmt.Sprintf("r-%d", i), Generation: 1}
		objs = append(objs,
			&seedv1alpha1.WebServer{ObjectMeta: meta, Status: seedv1alpha1.WebServerStatus{Conditions: ready}},
			&seedv1alpha1.Echo{ObjectMeta: meta, Status: seedv1alpha1.EchoStatus{Conditions: ready}},
			&seedv1alpha1.ScheduledEcho{ObjectMeta: meta, Spec: seedv1alpha1.ScheduledEchoSpec{Schedule: "*/5 * * * *"},
				Status: seedv1alpha1.ScheduledEchoStatus{Conditions: ready}},
			&seedv1alpha1.ImmortalContainer{ObjectMeta: meta, Status: seedv1alpha1.ImmortalContainerStatus{Conditions: ready}},
			&seedv1alpha1.DemoVolume{ObjectMeta: meta, Status: seedv1alpha1.DemoVolumeStatus{Conditions: ready, Capacity: "1Gi"}},
		)
	}
	reader := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	registry := prometheus.NewRegistry()
	registry.MustRegister(&Collector{reader: reader, leading: func() bool { return true }, log: logr.Discard()})
	b.ReportAllocs()
	for b.Loop() {
		families, err := registry.Gather()
		if err != nil || len(families) == 0 {
			b.Fatal(err)
		}
	}
}
