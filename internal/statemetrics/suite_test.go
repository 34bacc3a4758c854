package statemetrics

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var env *testenv.Env

// TestCollector runs the collector in a manager with the operator's RBAC,
// against envtest's API server, with a cache that keeps the Services the
// operator manages; the series builders' own tests are plain table tests.
func TestCollector(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Resource state metrics")
}

var _ = BeforeSuite(func() {
	owned := cached.Owned{Type: &corev1.Service{}}
	env = testenv.StartSuite(func(e *testenv.Env) error { return Register(e.Manager, owned) }, owned)
})
