package demovolume

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var (
	env        *testenv.Env
	k8sClient  client.Client
	reconciler *Reconciler
)

func TestDemoVolume(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "DemoVolume controller")
}

var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(e *testenv.Env) error {
		reconciler = &Reconciler{Client: e.Manager.GetClient(), Applier: e.Applier, Snapshots: true}
		return reconciler.SetupWithManager(e.Manager)
	}, append(Owned, OwnedSnapshots)...)
	k8sClient = env.Client
})
