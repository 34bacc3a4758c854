//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// helmRelease contains the chart's name, so the objects are named
// helmRelease-..., apart from config/'s seed-operator-... that the other
// specs install.
const helmRelease = "seed-operator-helm"

// The chart as users without OLM get it: packaged, pushed to a registry as
// an OCI artifact and installed from there, the operator running from the
// image `make images` pushed, on the real node.
var _ = Describe("Installed with Helm from an OCI registry", Ordered, Serial, func() {
	var (
		namespace, chartRef string
		started             time.Time
	)
	manager := helmRelease + "-controller-manager"
	helm := func(args ...string) string {
		GinkgoHelper()
		out, err := exec.Command(os.Getenv("HELM"), args...).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "helm %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	deployment := func(ctx context.Context) *appsv1.Deployment {
		GinkgoHelper()
		d := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: manager}, d)).To(Succeed())
		return d
	}

	BeforeAll(func(ctx SpecContext) {
		started = time.Now()
		// The local replicas would reconcile alongside the release's.
		stopReplicas()
		namespace = realNamespace(ctx, "helm")

		By("packaging the chart and pushing it to the local registry")
		dir := GinkgoT().TempDir()
		helm("package", filepath.Join(root, "dist", "chart"), "--destination", dir)
		registry, _, _ := strings.Cut(images["operator"], "/")
		helm("push", filepath.Join(dir, "seed-operator-"+os.Getenv("VERSION")+".tgz"), "oci://"+registry+"/seed-operators/charts", "--plain-http")
		chartRef = "oci://" + registry + "/seed-operators/charts/seed-operator"
		DeferCleanup(func() {
			// Whatever a failed spec left behind.
			_ = exec.Command(os.Getenv("HELM"), "uninstall", helmRelease, "--namespace", namespace, "--ignore-not-found").Run()
		})
	})
	AfterAll(func() {
		AddReportEntry("helm specs", time.Since(started).Round(time.Second).String())
	})

	It("installs from the OCI chart: the operator runs from its image and reconciles a sample", func(ctx SpecContext) {
		_, digest, _ := strings.Cut(images["operator"], "@")
		helm("install", helmRelease, chartRef, "--version", os.Getenv("VERSION"), "--plain-http",
			"--namespace", namespace, "--set", "image.digest="+digest, "--set", "tests.image="+images["busybox"],
			"--wait", "--timeout", "3m")

		d := deployment(ctx)
		Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(1))
		pods := managerPods(ctx, namespace)
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].Spec.NodeName).To(Equal(realNodeName(ctx)))
		// The chart's default repository, served by the local registry
		// through the node's mirror, at the digest make images pushed.
		Expect(pods[0].Spec.Containers[0].Image).To(Equal("quay.io/seed-operators/seed-operator@" + digest))
		Eventually(ctx, func(g Gomega) { g.Expect(leaderPod(ctx, g, namespace)).To(Equal(pods[0].Name)) }).Should(Succeed())

		readyWebServer(ctx, realNamespace(ctx, "helm-sample"), "web")
	})

	It("passes helm test: the manager answers its readiness check", func() {
		out := helm("test", helmRelease, "--namespace", namespace, "--logs", "--timeout", "2m")
		Expect(out).To(ContainSubstring("Phase:          Succeeded"))
		Expect(out).To(ContainSubstring("OK: http://" + helmRelease + "-test-ready." + namespace + ".svc:8081/readyz answered ok"))
	})

	It("upgrades to ha=true: two replicas with one leader, which hands the Lease over when its pod is deleted", func(ctx SpecContext) {
		helm("upgrade", helmRelease, chartRef, "--version", os.Getenv("VERSION"), "--plain-http",
			"--namespace", namespace, "--reuse-values", "--set", "ha=true", "--wait", "--timeout", "3m")

		d := deployment(ctx)
		Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
		Expect(d.Spec.Template.Spec.Affinity.PodAntiAffinity).NotTo(BeNil())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: manager}, &policyv1.PodDisruptionBudget{})).To(Succeed())
		Eventually(ctx, func(g Gomega) { g.Expect(managerPods(ctx, namespace)).To(HaveLen(2)) }).Should(Succeed())
		Eventually(ctx, func(g Gomega) { g.Expect(leaderPod(ctx, g, namespace)).NotTo(BeEmpty()) }).Should(Succeed())

		expectHandover(ctx, namespace)
		readyWebServer(ctx, realNamespace(ctx, "helm-ha"), "after")
	})

	It("uninstalls the operator and leaves the CRDs, the custom resources, what they own and their PVCs", func(ctx SpecContext) {
		sample := realNamespace(ctx, "helm-kept")
		ws := readyWebServer(ctx, sample, "web")
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: sample},
			Spec:       seedv1alpha1.DemoVolumeSpec{Name: "data", Size: 1},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		expectReady(ctx, dv)
		claim := &corev1.PersistentVolumeClaim{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: sample, Name: "data"}, claim)).To(Succeed())
		webDeployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), webDeployment)).To(Succeed())

		helm("uninstall", helmRelease, "--namespace", namespace, "--wait", "--timeout", "2m")

		for _, gone := range []client.Object{
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: manager}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: manager}},
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: helmRelease + "-manager-role"}},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: helmRelease + "-manager-rolebinding"}},
		} {
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(gone), gone))).To(BeTrue(), "%T %s", gone, gone.GetName())
		}
		Eventually(ctx, func(g Gomega) { g.Expect(managerPods(ctx, namespace)).To(BeEmpty()) }).Should(Succeed())

		for _, crd := range []string{"webservers", "echoes", "scheduledechoes", "immortalcontainers", "demovolumes"} {
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crd + "." + seedv1alpha1.GroupVersion.Group}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		}
		for _, kept := range []client.Object{ws, webDeployment, dv, claim} {
			now := kept.DeepCopyObject().(client.Object)
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(kept), now)).To(Succeed())
			Expect(now.GetUID()).To(Equal(kept.GetUID()), "%T %s is the same object", kept, kept.GetName())
			Expect(now.GetDeletionTimestamp()).To(BeNil(), "%T %s", kept, kept.GetName())
		}
	})
})
