package webserver

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

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
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)

	var err error
	env, err = testenv.Start(&appsv1.Deployment{}, &corev1.Service{})
	Expect(err).NotTo(HaveOccurred())
	k8sClient = env.Client

	reconciler = &Reconciler{Client: env.Manager.GetClient(), Applier: env.Applier}
	Expect(reconciler.SetupWithManager(env.Manager)).To(Succeed())
	env.Run()
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})
