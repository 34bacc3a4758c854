package testenv

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/seed-operators/seed-operator/internal/cached"
)

// StartSuite starts the API server and a manager for a Ginkgo suite, with
// the controllers that setup adds, from a BeforeSuite. Waits are bounded, so
// a controller that never gets there fails the spec rather than hanging it.
func StartSuite(setup func(*Env) error, owned ...cached.Owned) *Env {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)

	env, err := Start(owned...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	Expect(setup(env)).To(Succeed())
	env.Run()
	return env
}
