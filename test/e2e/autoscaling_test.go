//go:build e2e

package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// autoscalerUser is who kube-controller-manager's autoscaler writes as.
const autoscalerUser = "system:serviceaccount:kube-system:horizontal-pod-autoscaler"

var _ = Describe("Autoscaling on the real node", func() {
	// In parallel with other specs: it measures the CPU its own pods spend
	// on a fixed rate of requests, which the others' work does not lower.
	It("scales a WebServer up on real CPU and back down once the load stops, with every request served and replicas written by the autoscaler alone", long, func(ctx SpecContext) {
		namespace := realNamespace(ctx, "autoscale")
		key := client.ObjectKey{Namespace: namespace, Name: "web"}

		By("metrics-server serving the resource metrics API, as kubectl top reads it")
		Eventually(ctx, func(g Gomega) {
			pods := &unstructured.UnstructuredList{}
			pods.SetAPIVersion("metrics.k8s.io/v1beta1")
			pods.SetKind("PodMetricsList")
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace("kube-system"))).To(Succeed())
			g.Expect(pods.Items).NotTo(BeEmpty(), "no pod of kube-system has metrics yet")
		}).WithTimeout(2 * time.Minute).Should(Succeed())

		ws := readyWebServer(ctx, namespace, key.Name, func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
			ws.Spec.Autoscaling = &seedv1alpha1.WebServerAutoscaling{
				MinReplicas: ptr.To[int32](1), MaxReplicas: 4, TargetCPUUtilizationPercentage: ptr.To[int32](30),
				Behavior: &seedv1alpha1.WebServerScalingBehavior{
					ScaleDown: &seedv1alpha1.WebServerScalingRules{StabilizationWindowSeconds: ptr.To[int32](15)},
				},
			}
		})

		url := fmt.Sprintf("http://%s-service.%s.svc/", key.Name, namespace)
		// Slower than the other specs' poller, which alone would keep two
		// pods above the target: its requests go to one pod, which must
		// leave the two pods' average under half the target once the load
		// stops, on a machine where a request costs nginx several times
		// what it does on another.
		poller := pollPage(ctx, key, 500*time.Millisecond)
		audit := testenv.StartAuditLog()

		By("a pod sending 200 requests a second through the Service")
		// A fixed rate, not as many as the machine can send. What a request
		// costs nginx differs severalfold between machines: the rate, the
		// CPU request and the poller's rate leave room for that on both
		// sides, four pods held above the target under the load and one
		// below it under the poller alone (docs/testing.md has the figures).
		load := clientPod(namespace, "load", "exec fetch --rate 200 "+url)
		load.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		Expect(k8sClient.Create(ctx, load)).To(Succeed())
		loadStarted := time.Now()
		replicas := func(g Gomega) int32 {
			g.Expect(k8sClient.Get(ctx, key, ws)).To(Succeed())
			return ws.DesiredReplicas()
		}
		Eventually(ctx, replicas).WithTimeout(3 * time.Minute).Should(BeNumerically(">", 1))
		firstUp := time.Since(loadStarted)
		Eventually(ctx, func(g Gomega) {
			g.Expect(replicas(g)).To(BeEquivalentTo(4))
			g.Expect(ws.Status.ReadyReplicas).To(BeEquivalentTo(4))
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		atMax := time.Since(loadStarted)
		steady := time.Now()

		By("held at its maximum, above its target: the ScalingLimited condition, and no replica count written meanwhile")
		var heldAt int32
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, ws)).To(Succeed())
			limited := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.WebServerScalingLimited)
			g.Expect(limited).NotTo(BeNil())
			g.Expect(limited.Status).To(Equal(metav1.ConditionTrue), "%s: %s, at %s of the pods' CPU requests",
				limited.Reason, limited.Message, utilization(ws.Status.Autoscaling))
			g.Expect(limited.Reason).To(Equal(seedv1alpha1.ReasonTooManyReplicas))
			g.Expect(ws.Status.Autoscaling).To(HaveValue(And(
				HaveField("CurrentReplicas", BeEquivalentTo(4)),
				HaveField("CurrentCPUUtilizationPercentage", HaveValue(BeNumerically(">", 30))),
			)), "the autoscaler's figures in status")
			heldAt = *ws.Status.Autoscaling.CurrentCPUUtilizationPercentage
		}).WithTimeout(time.Minute).Should(Succeed())
		// At least one more of the autoscaler's 15 s syncs.
		Consistently(ctx, replicas).WithTimeout(20 * time.Second).Should(BeEquivalentTo(4))
		Expect(replicaWrites(audit, namespace, steady)).To(BeEmpty(), "replica counts written under a steady load")

		By("the load stopped")
		Expect(k8sClient.Delete(ctx, load, client.GracePeriodSeconds(0))).To(Succeed())
		loadStopped := time.Now()
		Eventually(ctx, func(g Gomega) {
			g.Expect(replicas(g)).To(BeEquivalentTo(1))
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, key, d)).To(Succeed())
			g.Expect(d.Status.Replicas).To(BeEquivalentTo(1), "the scaled-down pods are gone")
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		backToMin := time.Since(loadStopped)
		poller.stop()

		requests, failures, _ := poller.result()
		report := fmt.Sprintf("first scale-up %s after the load began, 4 pods ready after %s, held there at %d%% of their CPU requests; back to 1 pod %s after it stopped (15 s window); %d requests, %d failed",
			firstUp.Round(time.Second), atMax.Round(time.Second), heldAt, backToMin.Round(time.Second), requests, len(failures))
		GinkgoWriter.Println("Autoscaling: " + report)
		AddReportEntry("autoscaling", report)
		Expect(failures).To(BeEmpty(), "requests failed while scaling")

		By("the replica counts written by the autoscaler alone, and the Deployment's by the operator alone, once per scale")
		writes := replicaWrites(audit, namespace, time.Time{})
		var scales, deploymentPatches int
		for _, w := range writes {
			switch {
			case w.ObjectRef.Resource == "webservers" && w.ObjectRef.Subresource == "scale":
				Expect(w.User.Username).To(Equal(autoscalerUser), "the WebServer scaled by someone else: %s %s", w.Verb, w.User.Username)
				scales++
			case w.ObjectRef.Resource == "deployments" && w.ObjectRef.Subresource == "":
				Expect(w.User.Username).To(Equal(testenv.OperatorUser), "the Deployment written by someone else: %s %s", w.Verb, w.User.Username)
				deploymentPatches++
			default:
				Fail(fmt.Sprintf("a write of replicas by %s: %s %s/%s", w.User.Username, w.Verb, w.ObjectRef.Resource, w.ObjectRef.Subresource))
			}
		}
		GinkgoWriter.Printf("Autoscaling: %d scales of the WebServer by the autoscaler, %d writes of the Deployment by the operator\n", scales, deploymentPatches)
		Expect(scales).To(BeNumerically(">=", 2), "scaled up and down")
		Expect(deploymentPatches).To(BeNumerically("<=", scales), "the operator writes the Deployment once per scale at most")

		By("an edit of the autoscaler put back, and the autoscaler removed with spec.autoscaling")
		Eventually(ctx, func(g Gomega) {
			hpa := &autoscalingv2.HorizontalPodAutoscaler{}
			g.Expect(k8sClient.Get(ctx, key, hpa)).To(Succeed())
			hpa.Spec.MaxReplicas = 10
			g.Expect(k8sClient.Update(ctx, hpa)).To(Succeed())
		}).Should(Succeed())
		Eventually(ctx, func(g Gomega) {
			hpa := &autoscalingv2.HorizontalPodAutoscaler{}
			g.Expect(k8sClient.Get(ctx, key, hpa)).To(Succeed())
			g.Expect(hpa.Spec.MaxReplicas).To(BeEquivalentTo(4))
		}).Should(Succeed())
		testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Autoscaling = nil })
		Eventually(ctx, func(g Gomega) {
			err := k8sClient.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the autoscaler is still there: %v", err)
		}).Should(Succeed())
		expectReady(ctx, ws)
		Expect(ws.Status.Autoscaling).To(BeNil())
	})
})

// replicaWrites are the writes, since the audit log's start or since, of
// what sets a WebServer's or its Deployment's replicas in namespace: the
// WebServer (its spec, or its scale subresource) and the Deployment (its
// spec, or its scale subresource). Status writes are not among them.
func replicaWrites(audit testenv.AuditLog, namespace string, since time.Time) []testenv.AuditEvent {
	writes := map[string]bool{"update": true, "patch": true, "create": true}
	return audit.Matching(func(e testenv.AuditEvent) bool {
		r := e.ObjectRef
		return r.Namespace == namespace && writes[e.Verb] && e.Code() < 300 && !e.Received.Time.Before(since) &&
			(r.Resource == "webservers" || r.Resource == "deployments") && r.Subresource != "status"
	})
}

// utilization is the pods' CPU use the autoscaler last read, as a
// failure reports it.
func utilization(status *seedv1alpha1.WebServerAutoscalingStatus) string {
	if status == nil || status.CurrentCPUUtilizationPercentage == nil {
		return "a use not yet read"
	}
	return fmt.Sprintf("%d%%", *status.CurrentCPUUtilizationPercentage)
}
