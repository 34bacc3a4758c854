package v1alpha1_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
	namespace string
)

// TestAPI checks what the API server makes of the CRDs alone: what it
// refuses, with which message, and what kubectl explain says. No controller
// runs.
func TestAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed.example.com/v1alpha1 API")
}

var _ = BeforeSuite(func() {
	env = testenv.StartSuite(func(*testenv.Env) error { return nil })
	k8sClient = env.Client
})

var _ = BeforeEach(func(ctx SpecContext) {
	namespace = env.Namespace(ctx, "api")
})
