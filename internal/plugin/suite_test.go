package plugin

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/controllers/demovolume"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
)

func TestPlugin(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kubectl seed")
}

// The plugin drives the operator's DemoVolume controller, as a user's
// kubectl seed drives the operator.
var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(e *testenv.Env) error {
		r := &demovolume.Reconciler{Client: e.Manager.GetClient(), Applier: e.Applier, Snapshots: true}
		return r.SetupWithManager(e.Manager)
	}, append(demovolume.Owned, demovolume.OwnedSnapshots)...)
	k8sClient = env.Client
})
