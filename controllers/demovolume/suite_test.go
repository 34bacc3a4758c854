package demovolume

import (
	"context"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/internal/volumestats"
)

var (
	env        *testenv.Env
	k8sClient  client.Client
	reconciler *Reconciler
	// usages plays the kubelets, whose summary API envtest has none of
	// (the reader of the real one is tested in internal/volumestats).
	usages = &fakeUsages{byClaim: map[string]volumestats.Usage{}}
)

// fakeUsages are volumes' usages, by namespace/claim, or the error a
// kubelet answers.
type fakeUsages struct {
	mu      sync.Mutex
	byClaim map[string]volumestats.Usage
	err     error
}

// fail makes every reading fail with err, nil again to succeed.
func (f *fakeUsages) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// set is the usage of the claim "data" in namespace, measured now.
func (f *fakeUsages) set(namespace string, used, capacity int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byClaim[namespace+"/data"] = volumestats.Usage{Used: used, Capacity: capacity, Time: time.Now()}
}

func (f *fakeUsages) ClaimUsage(_ context.Context, _ *corev1.PersistentVolume, namespace, name string) (volumestats.Usage, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return volumestats.Usage{}, false, f.err
	}
	u, ok := f.byClaim[namespace+"/"+name]
	return u, ok, nil
}

func TestDemoVolume(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "DemoVolume controller")
}

var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(e *testenv.Env) error {
		reconciler = &Reconciler{Client: e.Manager.GetClient(), Applier: e.Applier, Snapshots: true, Usage: usages, UsagePoll: time.Second}
		return reconciler.SetupWithManager(e.Manager)
	}, append(Owned, OwnedSnapshots)...)
	k8sClient = env.Client
})
