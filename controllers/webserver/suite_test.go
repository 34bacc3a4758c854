package webserver

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var (
	env        *testenv.Env
	k8sClient  client.Client
	reconciler *Reconciler
)

func TestWebServer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "WebServer controller")
}

var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(e *testenv.Env) error {
		reconciler = &Reconciler{Client: e.Manager.GetClient(), Applier: e.Applier}
		return reconciler.SetupWithManager(e.Manager)
	}, &appsv1.Deployment{}, &corev1.Service{}, &corev1.Pod{})
	k8sClient = env.Client
})
