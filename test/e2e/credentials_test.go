//go:build e2e

package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// The operator may read no Secret: its RBAC grants none, and this suite's
// RBAC check would refuse one it did not use. The credentials it handles
// are tokens: its own, and the bearer tokens of its metrics' clients,
// which it sends to a TokenReview.
var _ = Describe("Credentials", func() {
	// Serial: it reads the replicas' logs and scrapes them.
	It("never shows a token in its logs or in events: its own, nor one its metrics' clients sent", Serial, func(ctx SpecContext) {
		const reader, nosy = "e2e-token-reader", "e2e-token-nosy"
		readerToken, err := testenv.MetricsReaderToken(ctx, clientset, reader)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(k8sClient.Delete, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reader, Namespace: operatorNamespace}})
		DeferCleanup(k8sClient.Delete, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: reader}})
		// An account no role is bound to.
		nosyToken, err := testenv.ServiceAccountToken(ctx, clientset, nosy)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(k8sClient.Delete, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: nosy, Namespace: operatorNamespace}})

		By("scraping every replica with a reader's token, an unbound account's and a forged one")
		// The TokenReview of a forged token fails rather than says no: still
		// 401, as kube-apiserver answers (controller-runtime's filter said 500).
		scrapes := []struct {
			token  string
			status int
		}{
			{readerToken, http.StatusOK},
			{nosyToken, http.StatusForbidden},
			{"forged." + nosyToken[strings.IndexByte(nosyToken, '.')+1:] + "x", http.StatusUnauthorized},
		}
		for _, r := range replicas {
			for _, s := range scrapes {
				// The metrics endpoint may open a moment after the probes.
				Eventually(ctx, func(g Gomega) {
					status, body, err := scrapeMetrics(ctx, r, s.token)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(status).To(Equal(s.status), "replica %s: %s", r.name, body)
				}).WithTimeout(30 * time.Second).Should(Succeed())
			}
		}

		By("looking for them, and for every replica's own token, in the log of every replica this run started, and in every event")
		secrets := append(jwtSecrets(readerToken), jwtSecrets(nosyToken)...)
		Expect(started).NotTo(BeEmpty())
		for _, r := range started {
			own, err := os.ReadFile(filepath.Join(filepath.Dir(r.logPath), "token"))
			Expect(err).NotTo(HaveOccurred())
			secrets = append(secrets, jwtSecrets(strings.TrimSpace(string(own)))...)
		}
		for _, r := range started {
			for _, secret := range secrets {
				Expect(strings.Contains(r.log(), secret)).To(BeFalse(), "%s shows a token", r.logPath)
			}
		}
		events := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, events)).To(Succeed())
		coreEvents := &corev1.EventList{}
		Expect(k8sClient.List(ctx, coreEvents)).To(Succeed())
		notes := make([]string, 0, len(events.Items)+len(coreEvents.Items))
		for _, e := range events.Items {
			notes = append(notes, e.Note)
		}
		for _, e := range coreEvents.Items {
			notes = append(notes, e.Message)
		}
		for _, note := range notes {
			for _, secret := range secrets {
				Expect(strings.Contains(note, secret)).To(BeFalse(), "an event shows a token: %q", note)
			}
		}
	})
})

// jwtSecrets are the parts of a JSON web token that are its own: the
// claims and the signature. The header is the same in every token the
// cluster signs.
func jwtSecrets(token string) []string {
	parts := strings.Split(token, ".")
	Expect(parts).To(HaveLen(3), "not a JSON web token")
	return parts[1:]
}
