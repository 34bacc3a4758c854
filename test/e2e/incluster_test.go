//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

const (
	managerDeployment = "seed-operator-controller-manager"
	metricsService    = "seed-operator-controller-manager-metrics-service"
)

// The operator as `make deploy` installs it: config/default, its manager
// running from the image `make images` built, on the real node; then as
// Prometheus sees it.
var _ = Describe("Deployed in the cluster from its image", Ordered, Serial, func() {
	var m monitored
	BeforeAll(func(ctx SpecContext) {
		deployInPlaceOfReplicas(ctx)
		m = startMonitoring(ctx)
	})

	It("runs two replicas from its image under the restricted profile, with passing probes, one of them leading", func(ctx SpecContext) {
		pods := managerPods(ctx, operatorNamespace)
		Expect(pods).To(HaveLen(2))
		for _, pod := range pods {
			Expect(pod.Spec.NodeName).To(Equal(realNodeName(ctx)), "the kubelet, not kwok, runs it")
			Expect(pod.Spec.Containers[0].Image).To(Equal(images["operator"]))
			Expect(pod.Spec.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
			Expect(pod.Spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
			sc := pod.Spec.Containers[0].SecurityContext
			Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
			Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			Expect(pod.Status.ContainerStatuses).To(ConsistOf(And(
				HaveField("Ready", BeTrue()), HaveField("RestartCount", BeZero()))))
			// The downward API gives the manager its memory limit, of which
			// the Go runtime keeps to 85% (main's memoryLimitPercent).
			limit := pod.Spec.Containers[0].Resources.Limits.Memory().Value()
			Expect(podLogs(ctx, operatorNamespace, pod.Name)).To(ContainSubstring(`"goMemoryLimit":"%d bytes"`, limit/100*85))
		}
		expectPodLeading(ctx)

		By("reconciling a WebServer whose pods run on the real node")
		namespace := realNamespace(ctx, "incluster")
		readyWebServer(ctx, namespace, "web")

		By("kubectl seed: the operator's state, and a support bundle with its pods' logs")
		Expect(kubectlSeed(ctx, "status", "-n", namespace)).To(MatchRegexp(
			`^Operator in namespace ` + operatorNamespace + `: \S+ \(version v\d+\.\d+\.\d+\), 2 of 2 replicas ready, leader \S+\nMetrics: Service \S+;`))
		file := filepath.Join(GinkgoT().TempDir(), "report.tar.gz")
		kubectlSeed(ctx, "report", "-n", namespace, "-o", file)
		files, err := testenv.ReadTarGz(file)
		Expect(err).NotTo(HaveOccurred())
		for _, pod := range pods {
			log := fmt.Sprintf("operator/%s/logs-%s-%s.log", operatorNamespace, pod.Name, pod.Spec.Containers[0].Name)
			Expect(files).To(HaveKeyWithValue(log, ContainSubstring("goMemoryLimit")))
		}
		Expect(files).To(HaveKey("resources/" + namespace + "/webservers/web.yaml"))
	})

	It("serves its metrics over HTTPS to an authorized service account only", func(ctx SpecContext) {
		namespace := realNamespace(ctx, "metrics")
		url := fmt.Sprintf("https://%s.%s.svc:8443/metrics", metricsService, operatorNamespace)
		scrape := func(name, serviceAccount string) string {
			pod := clientPod(namespace, name, "fetch --insecure --status "+url)
			if serviceAccount != "" {
				Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: serviceAccount, Namespace: namespace}})).To(Succeed())
				pod.Spec.ServiceAccountName = serviceAccount
				pod.Spec.AutomountServiceAccountToken = ptr.To(true)
				pod.Spec.Containers[0].Command[2] = "fetch --insecure --status --token-file=/var/run/secrets/kubernetes.io/serviceaccount/token " + url
			}
			return strings.TrimSpace(runToCompletion(ctx, pod))
		}
		Expect(scrape("anonymous", "")).To(Equal("401"))
		Expect(scrape("unbound", "nosy")).To(Equal("403"))

		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-metrics-reader-"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "seed-operator-metrics-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: namespace}},
		}
		Expect(k8sClient.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, binding)).To(Succeed()) })
		Eventually(ctx, func() string {
			return scrape("reader-"+rand.String(5), "prometheus")
		}).Should(Equal("200"))
	})

	It("hands the lead over when the leader's pod is deleted at once", func(ctx SpecContext) {
		expectHandover(ctx, operatorNamespace)

		By("the new leader reconciling")
		readyWebServer(ctx, realNamespace(ctx, "takeover"), "after")
		Eventually(ctx, func(g Gomega) { g.Expect(managerPods(ctx, operatorNamespace)).To(HaveLen(2)) }).Should(Succeed())
	})

	It("logs JSON, with the resource and the reconcile's ID in a reconcile's lines", func(ctx SpecContext) {
		expectStructuredLogs(ctx, createNamespace(ctx, "logs", nil))
	})

	describeMonitoring(&m)
})

// deployInPlaceOfReplicas stops the local replicas, which would share the
// Lease with the pods, deploys the operator on the real node (deploy), and
// puts things back after the specs of the container.
func deployInPlaceOfReplicas(ctx SpecContext) {
	stopReplicas()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}}
	testenv.Update(ctx, k8sClient, ns, func(ns *corev1.Namespace) {
		for k, v := range cluster.RealNodeAnnotations() {
			metav1.SetMetaDataAnnotation(&ns.ObjectMeta, k, v)
		}
	})

	deploy(ctx)
	DeferCleanup(func(ctx SpecContext) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: managerDeployment, Namespace: operatorNamespace}}
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, d))).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace(operatorNamespace))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).Should(Succeed())
	})
}

// expectHandover deletes the leading manager pod in namespace at once and
// waits for another pod to lead, and reports how long that took.
func expectHandover(ctx context.Context, namespace string) {
	var leader string
	Eventually(ctx, func(g Gomega) { leader = leaderPod(ctx, g, namespace); g.Expect(leader).NotTo(BeEmpty()) }).Should(Succeed())
	deleted := time.Now()
	Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: leader, Namespace: namespace}},
		client.GracePeriodSeconds(0))).To(Succeed())
	var next string
	Eventually(ctx, func(g Gomega) {
		next = leaderPod(ctx, g, namespace)
		g.Expect(next).NotTo(BeEmpty())
		g.Expect(next).NotTo(Equal(leader))
	}).WithPolling(100 * time.Millisecond).Should(Succeed())
	takeover := time.Since(deleted)
	GinkgoWriter.Printf("Takeover in %s: pod %s led %.1fs after pod %s was deleted\n", namespace, next, takeover.Seconds(), leader)
	AddReportEntry("takeover in the cluster", takeover.String())
}

// deploy applies config/default, as `make deploy` does, with the manager
// running the image `make images` pushed (by digest, so a rebuilt image of
// the same tag is not taken from the node's cache), and waits until it is
// Available.
func deploy(ctx context.Context) {
	out, err := exec.Command(os.Getenv("KUSTOMIZE"), "build", filepath.Join(root, "config", "default")).Output()
	Expect(err).NotTo(HaveOccurred())
	applyAll(ctx, out, func(obj *unstructured.Unstructured) bool {
		if obj.GetKind() == "CustomResourceDefinition" || obj.GetKind() == "Namespace" {
			return false
		}
		if obj.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
			Expect(unstructured.SetNestedField(containers[0].(map[string]any), images["operator"], "image")).To(Succeed())
			Expect(unstructured.SetNestedSlice(obj.Object, containers, "spec", "template", "spec", "containers")).To(Succeed())
		}
		return true
	})
	d := &appsv1.Deployment{}
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: managerDeployment}, d)).To(Succeed())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(2))
		g.Expect(d.Status.UpdatedReplicas).To(BeEquivalentTo(2))
	}).WithTimeout(180 * time.Second).Should(Succeed())
}

// kustomizeBuild builds the kustomization in dir into namespace, its
// names prefixed, as config/default does with the folders it names.
func kustomizeBuild(dir, namespace, namePrefix string) []byte {
	dir, err := filepath.Abs(dir)
	Expect(err).NotTo(HaveOccurred())
	overlay := GinkgoT().TempDir()
	// kustomize takes no absolute path to a kustomization.
	relative, err := filepath.Rel(overlay, dir)
	Expect(err).NotTo(HaveOccurred())
	kustomization := fmt.Sprintf("namespace: %s\nnamePrefix: %s\nresources:\n- %s\n", namespace, namePrefix, relative)
	Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o600)).To(Succeed())
	var stderr bytes.Buffer
	cmd := exec.Command(os.Getenv("KUSTOMIZE"), "build", "--load-restrictor=LoadRestrictionsNone", overlay)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "kustomize build %s: %s", dir, stderr.String())
	return out
}

// objects decodes the objects of a YAML stream.
func objects(manifests []byte) []*unstructured.Unstructured {
	objs, err := testenv.DecodeObjects(manifests)
	Expect(err).NotTo(HaveOccurred())
	return objs
}

// applyAll applies each object of manifests as the suite's field owner,
// after keep, when set, has changed it and not left it out.
func applyAll(ctx context.Context, manifests []byte, keep func(*unstructured.Unstructured) bool) {
	for _, obj := range objects(manifests) {
		if keep != nil && !keep(obj) {
			continue
		}
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("e2e"), client.ForceOwnership)).
			To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	}
}

// deleteAll deletes each object of manifests that exists.
func deleteAll(ctx context.Context, manifests []byte) {
	for _, obj := range objects(manifests) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, obj))).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	}
}

// managerPods are the running pods of the manager's Deployment in
// namespace.
func managerPods(ctx context.Context, namespace string) []corev1.Pod {
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
	var running []corev1.Pod
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp == nil && pod.Status.Phase == corev1.PodRunning {
			running = append(running, pod)
		}
	}
	return running
}

// leaderPod is the pod holding the Lease: the manager's identity is its
// pod's name (POD_NAME; without it, the host's name, which is the pod's,
// and a random suffix).
func leaderPod(ctx context.Context, g Gomega, namespace string) string {
	name, _, _ := strings.Cut(leaseHolder(ctx, g, namespace), "_")
	return name
}

// expectPodLeading waits until a running pod of the manager's Deployment
// holds the Lease, rather than a replica gone before.
func expectPodLeading(ctx context.Context) {
	Eventually(ctx, func(g Gomega) {
		pods := managerPods(ctx, operatorNamespace)
		names := make([]string, 0, len(pods))
		for _, pod := range pods {
			names = append(names, pod.Name)
		}
		g.Expect(names).To(ContainElement(leaderPod(ctx, g, operatorNamespace)), "the Lease's holder is no running pod")
	}).Should(Succeed())
}

// realNodeName is the real node's name.
func realNodeName(ctx context.Context) string {
	nodes := &corev1.NodeList{}
	Expect(k8sClient.List(ctx, nodes, client.HasLabels{cluster.RealNodeLabel})).To(Succeed())
	Expect(nodes.Items).To(HaveLen(1))
	return nodes.Items[0].Name
}

// The images the bundle names that are the project's own are those the
// local registry serves, as the node's containerd resolves their names.
// The operand images it names (nginx, busybox) are upstream's, which are
// never pushed under their names here.
var _ = It("serves from the local registry the project's own images the bundle names", func(ctx SpecContext) {
	var csv struct {
		Spec struct {
			RelatedImages []struct{ Image string } `json:"relatedImages"`
		} `json:"spec"`
	}
	Expect(testenv.ReadYAML(filepath.Join(root, "bundle", "manifests", "seed-operator.clusterserviceversion.yaml"), &csv)).To(Succeed())
	registry, _, _ := strings.Cut(images["operator"], "/")
	var own []string
	for _, related := range csv.Spec.RelatedImages {
		if repository, ok := strings.CutPrefix(related.Image, "quay.io/"); ok {
			own = append(own, repository)
		}
	}
	Expect(own).NotTo(BeEmpty())
	for _, repository := range own {
		name, tag, _ := strings.Cut(repository, ":")
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, fmt.Sprintf("http://%s/v2/%s/manifests/%s", registry, name, tag), nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s in the local registry", repository)
		if strings.HasSuffix(name, "/seed-operator") {
			_, digest, _ := strings.Cut(images["operator"], "@")
			Expect(resp.Header.Get("Docker-Content-Digest")).To(Equal(digest), "the manager's image, as make images pushed it")
		}
	}
})
