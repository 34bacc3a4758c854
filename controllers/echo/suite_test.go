package echo

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var (
	env                 *testenv.Env
	k8sClient           client.Client
	echoReconciler      *EchoReconciler
	scheduledReconciler *ScheduledEchoReconciler
)

func TestEcho(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Echo and ScheduledEcho controllers")
}

var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(e *testenv.Env) error {
		echoReconciler = &EchoReconciler{Client: e.Manager.GetClient(), Applier: e.Applier}
		scheduledReconciler = &ScheduledEchoReconciler{Client: e.Manager.GetClient(), Applier: e.Applier}
		if err := echoReconciler.SetupWithManager(e.Manager); err != nil {
			return err
		}
		return scheduledReconciler.SetupWithManager(e.Manager)
	}, Owned...)
	k8sClient = env.Client
})
