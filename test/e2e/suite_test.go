//go:build e2e

// Package e2e tests the operator end to end on the local cluster of `make
// cluster-up`, where the built-in controllers run for real (Deployments roll
// out, Jobs complete, CronJobs fire, the garbage collector deletes) and kwok
// plays the kubelets. The operator runs as two local processes with leader
// election, under its own ServiceAccount, as `make test-e2e` sets up.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// root is the project's root, from this package's directory.
const root = "../.."

var (
	k8sClient client.Client
	// replicas are the operator processes running now.
	replicas []*replica
	// nextPort hands out loopback ports to new replicas, two each.
	nextPort = 18081
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed-operator end to end")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)

	kubeconfig := os.Getenv("KUBECONFIG")
	Expect(kubeconfig).NotTo(BeEmpty(), "KUBECONFIG must name the local cluster: run `make test-e2e`")
	Expect(os.Getenv("MANAGER")).NotTo(BeEmpty(), "MANAGER must name the manager binary: run `make test-e2e`")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 100, 200

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	utilruntime.Must(seedv1alpha1.AddToScheme(scheme))
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	Expect(k8sClient.List(ctx, crds)).To(Succeed())
	Expect(crds.Items).To(ContainElement(HaveField("Spec.Group", seedv1alpha1.GroupVersion.Group)),
		"the CRDs are not installed: run `make test-e2e`, which installs them")

	// Two replicas, as the manager's Deployment runs: one leads.
	addReplica()
	addReplica()
	Eventually(ctx, func(g Gomega) { g.Expect(leaseHolder(ctx, g)).NotTo(BeEmpty()) }).Should(Succeed())
})

var _ = AfterSuite(func() {
	for _, r := range replicas {
		r.stop()
	}
})

// On failure, the operators' logs say what they did.
var _ = ReportAfterEach(func(report SpecReport) {
	if report.Failed() {
		for _, r := range replicas {
			AddReportEntry("operator "+r.name, r.tail())
		}
	}
})

// addReplica starts one more operator process.
func addReplica() {
	r := startReplica(fmt.Sprintf("replica-%d", len(replicas)), nextPort)
	nextPort += 2
	replicas = append(replicas, r)
}

// leader is the replica holding the lead.
func leader(ctx context.Context) *replica {
	var found *replica
	Eventually(ctx, func(g Gomega) {
		found = nil
		for _, r := range replicas {
			if r.isLeader() && !r.hasExited() {
				found = r
			}
		}
		g.Expect(found).NotTo(BeNil(), "no running replica leads")
	}).Should(Succeed())
	return found
}

// restrictedNamespace creates a namespace that enforces the restricted Pod
// Security Standard, deleted after the spec.
func restrictedNamespace(ctx context.Context, prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: prefix + "-",
		Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted",
			"pod-security.kubernetes.io/warn":    "restricted",
		},
	}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ns))).To(Succeed())
	})
	return ns.Name
}
