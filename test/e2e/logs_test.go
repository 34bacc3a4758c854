//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// expectStructuredLogs has the operator deployed in namespace log from a
// reconcile, by leaving alone a user's Service that has the name a
// WebServer's would, and checks that every line its pods logged is a JSON
// object with a level, a time and a message, and that the reconcile's line
// names the resource and carries the reconcile's ID.
func expectStructuredLogs(ctx context.Context, namespace string) {
	theirs := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "logged-service", Namespace: namespace},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	Expect(k8sClient.Create(ctx, theirs, client.FieldOwner("kubectl-create"))).To(Succeed())
	ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "logged", Namespace: namespace}}
	Expect(k8sClient.Create(ctx, ws)).To(Succeed())
	testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)

	var reconciles []map[string]any
	for _, pod := range managerPods(ctx, operatorNamespace) {
		for line := range strings.Lines(podLogs(ctx, operatorNamespace, pod.Name)) {
			var entry map[string]any
			Expect(json.Unmarshal([]byte(line), &entry)).To(Succeed(), "pod %s logged a line that is not JSON: %s", pod.Name, line)
			Expect(entry).To(And(HaveKey("level"), HaveKey("ts"), HaveKey("msg")), "pod %s: %s", pod.Name, line)
			if entry["WebServer"] != nil {
				reconciles = append(reconciles, entry)
			}
		}
	}
	Expect(reconciles).To(ContainElement(And(
		HaveKeyWithValue("msg", "Leaving alone an object that is not the resource's"),
		HaveKeyWithValue("controller", "webserver"),
		HaveKeyWithValue("WebServer", map[string]any{"name": ws.Name, "namespace": namespace}),
		HaveKeyWithValue("reconcileID", Not(BeEmpty())),
		HaveKeyWithValue("kind", "Service"),
		HaveKeyWithValue("name", theirs.Name),
	)))
}
