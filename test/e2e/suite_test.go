//go:build e2e

// Package e2e tests the operator end to end on the local cluster of `make
// cluster-up`, where the built-in controllers run for real (Deployments roll
// out, Jobs complete, CronJobs fire, the garbage collector deletes): on
// kwok's fake nodes, for most specs, and on the real node, where containers
// run, for the specs that need it. The operator runs as two local processes
// with leader election, under its own ServiceAccount, as `make test-e2e`
// sets up; the in-cluster specs deploy it from its image.
package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// root is the project's root, from this package's directory.
const root = "../.."

var (
	k8sClient client.Client
	// clientset reads pod logs, which controller-runtime's client does not.
	clientset *kubernetes.Clientset
	// images are the test and operator images `make images` pushed, by
	// name (hack/images).
	images map[string]string
	// replicas are the operator processes running now; started, every one
	// this run has started: the first process's only.
	replicas, started []*replica
	// nextPort hands out loopback ports to new replicas, two each.
	nextPort = 18081
	// specNamespaces are the namespaces the running spec created.
	specNamespaces []string
	// audit is the API server's audit log of this run, in the first
	// process.
	audit testenv.AuditLog
	// ticking is the ScheduledEcho the suite starts before its specs.
	ticking *seedv1alpha1.ScheduledEcho
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed-operator end to end")
}

// long marks a spec that runs in parallel and waits for a minute or more:
// such specs start first, so that the processes end their parallel specs
// at about the same time, rather than one starting the longest last while
// the others wait for it before the Serial specs.
var long = SpecPriority(1)

// Make runs the suite in parallel processes: the first starts the
// operator's replicas and the ScheduledEcho that ticks through the run, and
// hands every process that ScheduledEcho's namespace. The specs that use the
// replicas are Serial, so they run in the first process, after the others'.
var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	connect()
	audit = testenv.StartAuditLog()

	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	Expect(k8sClient.List(ctx, crds)).To(Succeed())
	Expect(crds.Items).To(ContainElement(HaveField("Spec.Group", seedv1alpha1.GroupVersion.Group)),
		"the CRDs are not installed: run `make test-e2e`, which installs them")

	// The suite's own replicas lead, not an operator `make demo DEPLOY=true`
	// left running in the cluster.
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
		Name: managerDeployment, Namespace: operatorNamespace,
	}}))).To(Succeed())

	// The first replica creates the Lease, as on a cluster the operator
	// was never installed on: the audit log then shows the grant used.
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Name: leaseName, Namespace: operatorNamespace,
	}}))).To(Succeed())

	// Two replicas, as the manager's Deployment runs: one leads. A failed
	// spec's report shows their logs, of this run only.
	Expect(removeReplicaLogs()).To(Succeed())
	addReplica()
	addReplica()
	Eventually(ctx, func(g Gomega) { g.Expect(leaseHolder(ctx, g, operatorNamespace)).NotTo(BeEmpty()) }).Should(Succeed())
	if strings.Contains(GinkgoLabelFilter(), "chaos") {
		return nil
	}
	return []byte(startTicking(ctx).Namespace)
}, func(ctx SpecContext, tickingNamespace []byte) {
	connect()
	if len(tickingNamespace) > 0 {
		ticking = &seedv1alpha1.ScheduledEcho{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: string(tickingNamespace), Name: tickName}, ticking)).To(Succeed())
	}
})

// connect sets the suite's timeouts and, once per process, its clients and
// the record of the images.
func connect() {
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	if k8sClient != nil {
		return
	}

	kubeconfig := os.Getenv("KUBECONFIG")
	Expect(kubeconfig).NotTo(BeEmpty(), "KUBECONFIG must name the local cluster: run `make test-e2e`")
	Expect(os.Getenv("MANAGER")).NotTo(BeEmpty(), "MANAGER must name the manager binary: run `make test-e2e`")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 100, 200

	k8sClient, clientset, err = testenv.ClusterClients(cfg)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.Getenv("IMAGES_RECORD")).NotTo(BeEmpty(), "IMAGES_RECORD must name the record of `make images`: run `make test-e2e`")
	images, err = cluster.ReadImages(os.Getenv("IMAGES_RECORD"))
	Expect(err).NotTo(HaveOccurred())
}

// The first process has the replicas: it stops them once every process has
// ended.
var _ = SynchronizedAfterSuite(func() {}, func() {
	for _, r := range replicas {
		r.stop()
	}
})

// Once every process has ended, the first compares the operator's RBAC with
// what it used in the whole run.
var _ = ReportAfterSuite("every verb the operator's RBAC grants was used, and no rule is a wildcard", func(ctx SpecContext, report Report) {
	if !wholeSuite() {
		GinkgoWriter.Println("RBAC: not compared with what the operator used, as only a part of the suite ran")
		return
	}
	// A failed spec's unfinished steps leave some of the grants unused.
	if failed := report.SpecReports.CountWithState(types.SpecStateFailureStates); failed > 0 {
		GinkgoWriter.Printf("RBAC: not compared with what the operator used, as %d specs failed before their end\n", failed)
		return
	}
	expectEveryGrantUsed(ctx, audit)
})

// On failure, the operators' logs say what they did, and the cluster's
// nodes and pods what the built-in controllers and kwok did.
var _ = ReportAfterEach(func(ctx SpecContext, report SpecReport) {
	namespaces := specNamespaces
	specNamespaces = nil
	if !report.Failed() {
		return
	}
	tails := replicaTails()
	for _, name := range slices.Sorted(maps.Keys(tails)) {
		AddReportEntry("operator "+name, tails[name])
	}
	AddReportEntry("cluster", describeCluster(ctx, namespaces))
})

// addReplica starts one more operator process, with env added to its
// environment (hack/operator.sh's variables).
func addReplica(env ...string) *replica {
	r := startReplica(fmt.Sprintf("replica-%d", len(started)), nextPort, env...)
	nextPort += 2
	replicas = append(replicas, r)
	started = append(started, r)
	return r
}

// stopReplicas stops the local replicas, and starts two again once the
// specs of the container that called it end.
func stopReplicas() {
	for _, r := range replicas {
		r.stop()
	}
	replicas = nil
	DeferCleanup(func() {
		addReplica()
		addReplica()
	})
}

// leader is the replica holding the lead.
func leader(ctx context.Context) *replica {
	var found *replica
	Eventually(ctx, func(g Gomega) {
		found = nil
		for _, r := range replicas {
			if r.isLeader() {
				found = r
			}
		}
		g.Expect(found).NotTo(BeNil(), "no running replica leads")
	}).Should(Succeed())
	return found
}

// restrictedNamespace creates a namespace that enforces the restricted Pod
// Security Standard, deleted after the spec. Its pods go to kwok's nodes.
func restrictedNamespace(ctx context.Context, prefix string) string {
	return createNamespace(ctx, prefix, nil)
}

// createNamespace creates a namespace with the given annotations that
// enforces the restricted Pod Security Standard, deleted after the spec,
// and waits for its default ServiceAccount, without which no pod is
// admitted. The controller manager makes it: after a chaos spec that
// crashed the controller manager, the kubelet's crash-loop back-off can
// hold it down for minutes, and a spec's bounds on the operator are not
// to count that.
func createNamespace(ctx context.Context, prefix string, annotations map[string]string) string {
	ns := testenv.RestrictedNamespace(ctx, k8sClient, prefix, annotations)
	specNamespaces = append(specNamespaces, ns)
	Eventually(ctx, func() error {
		return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{})
	}).WithTimeout(defaultServiceAccountWithin).Should(Succeed(), "the default ServiceAccount of namespace %s", ns)
	return ns
}

// defaultServiceAccountWithin bounds the wait for a new namespace's
// default ServiceAccount: the kubelet's longest crash-loop back-off of the
// controller manager, with room to start and lead.
const defaultServiceAccountWithin = 7 * time.Minute

// describeCluster lists the nodes' readiness and, in the given namespaces,
// the Deployments' rollout and the pods' phase and readiness.
func describeCluster(ctx context.Context, namespaces []string) string {
	var b strings.Builder
	nodes := &corev1.NodeList{}
	if err := k8sClient.List(ctx, nodes); err != nil {
		return err.Error()
	}
	for _, n := range nodes.Items {
		ready := corev1.ConditionUnknown
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				ready = c.Status
			}
		}
		fmt.Fprintf(&b, "node %s ready=%s\n", n.Name, ready)
	}
	for _, ns := range namespaces {
		deployments, pods := &appsv1.DeploymentList{}, &corev1.PodList{}
		if err := k8sClient.List(ctx, deployments, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
		if err := k8sClient.List(ctx, pods, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
		for _, d := range deployments.Items {
			fmt.Fprintf(&b, "deployment %s/%s generation=%d observed=%d replicas=%d updated=%d ready=%d\n", ns, d.Name,
				d.Generation, d.Status.ObservedGeneration, d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas)
		}
		for _, p := range pods.Items {
			ready := corev1.ConditionUnknown
			if c := podCondition(&p, corev1.PodReady); c != nil {
				ready = c.Status
			}
			fmt.Fprintf(&b, "pod %s/%s node=%q phase=%s ready=%s deleting=%t\n", ns, p.Name,
				p.Spec.NodeName, p.Status.Phase, ready, p.DeletionTimestamp != nil)
		}
	}
	return b.String()
}

// podCondition is the pod's condition of type t, or nil.
func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}
