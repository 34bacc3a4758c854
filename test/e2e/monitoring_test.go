//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

const (
	// Where make monitoring-up runs Prometheus, and its Service.
	monitoringNamespace = "monitoring"
	prometheusService   = "prometheus-operated"
	// The scrape pool of the ServiceMonitor config/prometheus ships, as
	// config/default names and places it.
	operatorScrapePool = "serviceMonitor/" + operatorNamespace + "/seed-operator-controller-manager-metrics-monitor/0"
	// shortWindow labels the copies of the shipped alerts whose for
	// windows the suite shortens to shortFor, so that it sees them go
	// pending and fire in seconds rather than minutes.
	shortWindow = "short"
	shortFor    = "15s"
)

// monitored is what the monitoring specs watch: a namespace of their own,
// one with a resource of each kind and the operator's counters moved, and
// one with resources in the faults the alerts are for.
type monitored struct{ namespace, fleet, faults string }

// startMonitoring applies config/prometheus (the ServiceMonitor and the
// PrometheusRule), as config/default names and places the operator, for
// the Prometheus of `make monitoring-up`, which selects every
// ServiceMonitor and PrometheusRule as a platform team's does; and makes
// what the dashboard shows. It runs before the specs of the deployed
// operator, which give Prometheus the minute or two it takes to see a
// change of its configuration or rules: once the kubelet has updated the
// volumes they are mounted from.
func startMonitoring(ctx SpecContext) monitored {
	manifests := bytes.Join([][]byte{
		kustomizeBuild(filepath.Join(root, "config", "prometheus"), operatorNamespace, "seed-operator-"),
		shortWindowRules(),
		anonymousServiceMonitor(),
	}, []byte("\n---\n"))
	applyAll(ctx, manifests, nil)
	DeferCleanup(deleteAll, manifests)
	return monitored{namespace: realNamespace(ctx, "monitored"), fleet: dashboardFleet(ctx), faults: alertFaults(ctx)}
}

// The resources alertFaults makes, each in the fault its alert is for.
const (
	rolledBackWebServer = "rolled-back"
	fullDemoVolume      = "full"
	lostDemoVolume      = "lost"
)

// alertFaults makes, in a namespace of their own, a WebServer rolled back
// from an image that never rolls out, a DemoVolume filled past its
// threshold at its maximum size and one whose volume is deleted from under
// its claim: the faults of the rollback and storage specs, which run
// against the local replicas that Prometheus does not scrape. They are
// made before the deployed operator's specs, so that their alerts have
// fired by the time the specs that look for them run.
func alertFaults(ctx SpecContext) string {
	namespace := realNamespace(ctx, "alerting")
	volume := func(name string, autoGrow *seedv1alpha1.DemoVolumeAutoGrow) *seedv1alpha1.DemoVolume {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: name, Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To(cluster.CSIStorageClass),
				AutoGrow: autoGrow,
			},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		return dv
	}
	full := volume(fullDemoVolume, &seedv1alpha1.DemoVolumeAutoGrow{ThresholdPercent: 60, MaxSize: 1})
	lost := volume(lostDemoVolume, nil)
	Expect(k8sClient.Create(ctx, claimPod(namespace, "filler", full.Name, "dd if=/dev/zero of=/data/a bs=1M count=800 && sleep 3600"))).To(Succeed())

	ws := readyWebServer(ctx, namespace, rolledBackWebServer, func(ws *seedv1alpha1.WebServer) {
		ws.Spec.Rollout.ProgressDeadlineSeconds = ptr.To[int32](20)
	})
	testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) {
		ws.Spec.Image = strings.Split(images["nginx-v1"], "@")[0] + "-missing"
	})

	expectReady(ctx, lost)
	claim := &corev1.PersistentVolumeClaim{}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(lost), claim)).To(Succeed())
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: claim.Spec.VolumeName}}
	Expect(k8sClient.Delete(ctx, pv)).To(Succeed())
	testenv.Update(ctx, k8sClient, pv, func(pv *corev1.PersistentVolume) { pv.Finalizers = nil })
	return namespace
}

// dashboardFleet makes one resource of each kind, an ImmortalContainer
// waiting to start again, a drift repaired and a name refused, so that
// every panel of the dashboard has something to show.
func dashboardFleet(ctx SpecContext) string {
	fleet := realNamespace(ctx, "dashboard")
	for _, obj := range createSamples(ctx, fleet) {
		expectReady(ctx, obj)
	}
	Expect(k8sClient.Create(ctx, &seedv1alpha1.ImmortalContainer{
		ObjectMeta: metav1.ObjectMeta{Name: "crashing", Namespace: fleet},
		Spec: seedv1alpha1.ImmortalContainerSpec{
			Image: images["busybox"], Command: []string{"sh", "-c", "exit 1"}, RunAsUser: ptr.To[int64](65534),
		},
	})).To(Succeed())
	ws := readyWebServer(ctx, fleet, "drifted")
	deployment := &appsv1.Deployment{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: fleet, Name: ws.Name}, deployment)).To(Succeed())
	testenv.Update(ctx, k8sClient, deployment, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) })
	Expect(k8sClient.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "taken-service", Namespace: fleet},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &seedv1alpha1.WebServer{
		ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: fleet}, Spec: seedv1alpha1.WebServerSpec{Image: images["nginx-v1"]},
	})).To(Succeed())
	return fleet
}

// describeMonitoring declares the specs of the deployed operator as
// Prometheus sees it, after startMonitoring. The last stops the operator.
func describeMonitoring(m *monitored) {
	Context("monitored by Prometheus", func() {
		It("scrapes every replica through the ServiceMonitor with Prometheus' token, and a scrape without one is refused", func(ctx SpecContext) {
			Eventually(ctx, func(g Gomega) {
				targets := activeTargets(ctx, g, operatorScrapePool)
				g.Expect(targets).To(HaveLen(2), "the targets: %v", activeTargets(ctx, g, ""))
				for _, t := range targets {
					g.Expect(t.Health).To(Equal("up"), "%s: %s", t.ScrapeURL, t.LastError)
				}
			}).WithTimeout(4 * time.Minute).Should(Succeed())
			Eventually(ctx, func(g Gomega) {
				leading := query(ctx, g, fmt.Sprintf(`sum(leader_election_master_status{namespace=%q, name=%q})`, operatorNamespace, kube.LeaderElectionID))
				g.Expect(leading).To(HaveLen(1))
				g.Expect(leading[0].value(g)).To(BeEquivalentTo(1), "one replica leads")
			}).Should(Succeed())

			By("a ServiceMonitor that sends no token")
			Eventually(ctx, func(g Gomega) {
				targets := activeTargets(ctx, g, "serviceMonitor/"+operatorNamespace+"/e2e-anonymous/0")
				g.Expect(targets).To(HaveLen(2), "the targets: %v", activeTargets(ctx, g, ""))
				for _, t := range targets {
					g.Expect(t.Health).To(Equal("down"))
					g.Expect(t.LastError).To(ContainSubstring("401"))
				}
			}).Should(Succeed())
		})

		It("follows a WebServer's replicas as it scales", func(ctx SpecContext) {
			ws := readyWebServer(ctx, m.namespace, "scaled")
			series := func(name string) string {
				return fmt.Sprintf(`%s{namespace=%q, name=%q}`, name, m.namespace, ws.Name)
			}
			expectValue(ctx, series("seed_webserver_replicas_ready"), 1)
			testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](2) })
			expectValue(ctx, series("seed_webserver_replicas_desired"), 2)
			expectValue(ctx, series("seed_webserver_replicas_ready"), 2)
		})

		It("fires the alert of a WebServer whose image cannot be pulled, and resolves it once the image is fixed", func(ctx SpecContext) {
			image := images["nginx-v1"]
			ws := &seedv1alpha1.WebServer{
				ObjectMeta: metav1.ObjectMeta{Name: "unpullable", Namespace: m.namespace},
				Spec:       seedv1alpha1.WebServerSpec{Image: strings.Split(image, "@")[0] + "-missing"},
			}
			Expect(k8sClient.Create(ctx, ws)).To(Succeed())
			alert := fmt.Sprintf(`alertname="SeedWebServerUnavailable", namespace=%q, name=%q`, m.namespace, ws.Name)
			expectAlertFires(ctx, alert)

			By("the image fixed")
			testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = image })
			expectReady(ctx, ws)
			expectAlertResolved(ctx, alert)
		})

		It("fires the alert of an Echo whose Job failed", func(ctx SpecContext) {
			// The nginx image has no echo program: the pod fails to start,
			// and with no retries the Job fails.
			echo := &seedv1alpha1.Echo{
				ObjectMeta: metav1.ObjectMeta{Name: "failing", Namespace: m.namespace},
				Spec:       seedv1alpha1.EchoSpec{Message: "never printed", Image: images["nginx-v1"], BackoffLimit: ptr.To[int32](0)},
			}
			Expect(k8sClient.Create(ctx, echo)).To(Succeed())
			expectAlertFires(ctx, fmt.Sprintf(`alertname="SeedEchoFailed", namespace=%q, name=%q`, m.namespace, echo.Name))
		})

		It("fires the alert of a WebServer rolled back from an image that never rolled out", func(ctx SpecContext) {
			ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: rolledBackWebServer, Namespace: m.faults}}
			testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonRolledBack)
			expectAlertFires(ctx, fmt.Sprintf(`alertname="SeedWebServerRolledBack", namespace=%q, name=%q`, m.faults, ws.Name))
		})

		It("fires the alert of a DemoVolume full at its maximum size", func(ctx SpecContext) {
			dv := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: fullDemoVolume, Namespace: m.faults}}
			testenv.ExpectCondition(ctx, k8sClient, dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionTrue, "AtMaxSize")
			expectAlertFires(ctx, fmt.Sprintf(`alertname="SeedDemoVolumeFull", namespace=%q, name=%q`, m.faults, dv.Name))
		})

		It("fires the alert of a DemoVolume whose volume is lost", func(ctx SpecContext) {
			claim := &corev1.PersistentVolumeClaim{}
			Eventually(ctx, func(g Gomega) corev1.PersistentVolumeClaimPhase {
				g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: m.faults, Name: lostDemoVolume}, claim)).To(Succeed())
				return claim.Status.Phase
			}).WithTimeout(time.Minute).Should(Equal(corev1.ClaimLost), "the claim of a volume deleted")
			expectAlertFires(ctx, fmt.Sprintf(`alertname="SeedDemoVolumeLost", namespace=%q, name=%q`, m.faults, lostDemoVolume))
		})

		It("answers every query of the dashboard with data", func(ctx SpecContext) {
			By("a drift in the fleet repaired twice, the second once Prometheus has the leader's count of the first")
			// The repair dashboardFleet made may have been counted by a
			// replica gone since, and increase() reads none for a series
			// whose first scrape holds its first count.
			repairDrift(ctx, m.fleet)
			Eventually(ctx, func(g Gomega) []sample {
				return query(ctx, g, `seed_drift_repairs_total{kind="Deployment"}`)
			}).WithTimeout(time.Minute).ShouldNot(BeEmpty())
			repairDrift(ctx, m.fleet)

			queries := dashboardQueries()
			Expect(queries).NotTo(BeEmpty())
			for _, q := range queries {
				// The ScheduledEcho's first successful run may take a minute
				// from the fleet's making.
				Eventually(ctx, func(g Gomega) {
					g.Expect(query(ctx, g, q.expr)).NotTo(BeEmpty(), "panel %q returns no data: %s", q.panel, q.expr)
				}).WithTimeout(150*time.Second).Should(Succeed(), "panel %q", q.panel)
			}

			By("the fleet's own figures, with its namespace for $namespace")
			for _, want := range fleetFigures() {
				Eventually(ctx, func(g Gomega) {
					var matched []float64
					for _, q := range dashboardQueriesIn(m.fleet) {
						if q.panel != want.panel {
							continue
						}
						for _, s := range query(ctx, g, q.expr) {
							if hasLabels(s.Metric, want.labels) {
								matched = append(matched, s.value(g))
							}
						}
					}
					g.Expect(matched).NotTo(BeEmpty(), "panel %q shows no series %v", want.panel, want.labels)
					g.Expect(matched).To(HaveEach(want.value), "panel %q, series %v", want.panel, want.labels)
				}).WithTimeout(time.Minute).Should(Succeed())
			}
		})

		It("raises the operator-down alert when no replica runs", func(ctx SpecContext) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: managerDeployment, Namespace: operatorNamespace}}
			testenv.Update(ctx, k8sClient, d, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](0) })
			Eventually(ctx, func(g Gomega) {
				g.Expect(activeTargets(ctx, g, operatorScrapePool)).To(BeEmpty())
				g.Expect(query(ctx, g, fmt.Sprintf(`up{namespace=%q} == 1`, operatorNamespace))).To(BeEmpty())
			}).WithTimeout(time.Minute).Should(Succeed())
			expectAlertFires(ctx, `alertname="SeedOperatorDown"`)
		})
	})
}

// sample is one series of a PromQL query's result.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s sample) value(g Gomega) float64 {
	text, ok := s.Value[1].(string)
	g.Expect(ok).To(BeTrue(), "a sample's value: %v", s.Value)
	v, err := strconv.ParseFloat(text, 64)
	g.Expect(err).NotTo(HaveOccurred())
	return v
}

// prometheusGet gets a path of Prometheus' HTTP API, through the API
// server's proxy to its Service, and decodes its data into data.
func prometheusGet(ctx context.Context, g Gomega, path string, params map[string]string, data any) {
	body, err := clientset.CoreV1().Services(monitoringNamespace).
		ProxyGet("http", prometheusService, "web", path, params).DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred(), "%s: %s", path, body)
	resp := struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}{}
	g.Expect(json.Unmarshal(body, &resp)).To(Succeed())
	g.Expect(resp.Status).To(Equal("success"), "%s: %s", path, resp.Error)
	g.Expect(json.Unmarshal(resp.Data, data)).To(Succeed())
}

// query evaluates an instant PromQL query whose result is a vector.
func query(ctx context.Context, g Gomega, expr string) []sample {
	var result struct {
		ResultType string   `json:"resultType"`
		Result     []sample `json:"result"`
	}
	prometheusGet(ctx, g, "api/v1/query", map[string]string{"query": expr}, &result)
	g.Expect(result.ResultType).To(Equal("vector"), expr)
	return result.Result
}

// expectValue waits until the single series expr selects has value want.
func expectValue(ctx context.Context, expr string, want float64) {
	Eventually(ctx, func(g Gomega) {
		samples := query(ctx, g, expr)
		g.Expect(samples).To(HaveLen(1), expr)
		g.Expect(samples[0].value(g)).To(Equal(want), expr)
	}).WithTimeout(2*time.Minute).Should(Succeed(), expr)
}

// target is one of Prometheus' active scrape targets.
type target struct {
	ScrapePool string `json:"scrapePool"`
	ScrapeURL  string `json:"scrapeUrl"`
	Health     string `json:"health"`
	LastError  string `json:"lastError"`
}

// activeTargets are Prometheus' active targets of a scrape pool, or of
// every pool.
func activeTargets(ctx context.Context, g Gomega, pool string) []target {
	var data struct {
		ActiveTargets []target `json:"activeTargets"`
	}
	prometheusGet(ctx, g, "api/v1/targets", map[string]string{"state": "active"}, &data)
	var targets []target
	for _, t := range data.ActiveTargets {
		if pool == "" || t.ScrapePool == pool {
			targets = append(targets, t)
		}
	}
	return targets
}

// expectAlertFires waits until the short-window copy of the alert the
// labels select fires, and checks that it was pending before, as
// Prometheus' own series of its alerts recorded it: the alert may have
// fired before the spec began. It reports how long the spec waited.
func expectAlertFires(ctx context.Context, labels string) {
	start := time.Now()
	alert := fmt.Sprintf(`ALERTS{window=%q, %s, alertstate="firing"}`, shortWindow, labels)
	Eventually(ctx, func(g Gomega) []sample { return query(ctx, g, alert) }).
		WithTimeout(4*time.Minute).WithPolling(time.Second).ShouldNot(BeEmpty(), labels)
	pending := fmt.Sprintf(`max_over_time(ALERTS{window=%q, %s, alertstate="pending"}[30m])`, shortWindow, labels)
	Expect(query(ctx, Default, pending)).NotTo(BeEmpty(), "the alert fired without being pending first: %s", labels)
	GinkgoWriter.Printf("Alert {%s}: firing after %s\n", labels, time.Since(start).Round(time.Second))
}

// expectAlertResolved waits until no copy of the alert is pending or
// firing.
func expectAlertResolved(ctx context.Context, labels string) {
	Eventually(ctx, func(g Gomega) []sample {
		return query(ctx, g, fmt.Sprintf(`ALERTS{%s}`, labels))
	}).WithTimeout(2*time.Minute).Should(BeEmpty(), labels)
}

// shortWindowRules is the PrometheusRule config/prometheus ships, its
// alerts only (the shipped rule records the series), each labelled
// window=short and pending for shortFor before it fires.
func shortWindowRules() []byte {
	data, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "rules.yaml"))
	Expect(err).NotTo(HaveOccurred())
	rule := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal(data, &rule.Object)).To(Succeed())
	groups, _, err := unstructured.NestedSlice(rule.Object, "spec", "groups")
	Expect(err).NotTo(HaveOccurred())
	var short []any
	for _, group := range groups {
		group := group.(map[string]any)
		var alerts []any
		for _, r := range group["rules"].([]any) {
			r := r.(map[string]any)
			if r["alert"] == nil {
				continue
			}
			r["for"] = shortFor
			Expect(unstructured.SetNestedField(r, shortWindow, "labels", "window")).To(Succeed())
			alerts = append(alerts, r)
		}
		if len(alerts) > 0 {
			short = append(short, map[string]any{"name": group["name"].(string) + "-short", "rules": alerts})
		}
	}
	Expect(short).NotTo(BeEmpty())
	copied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": rule.GetAPIVersion(), "kind": rule.GetKind(),
		"metadata": map[string]any{"name": "e2e-short-windows", "namespace": operatorNamespace},
		"spec":     map[string]any{"groups": short},
	}}
	out, err := yaml.Marshal(copied.Object)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// anonymousServiceMonitor is the shipped ServiceMonitor without the token.
func anonymousServiceMonitor() []byte {
	monitor := &unstructured.Unstructured{}
	data, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "monitor.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(data, &monitor.Object)).To(Succeed())
	endpoints, _, err := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	Expect(err).NotTo(HaveOccurred())
	for _, e := range endpoints {
		delete(e.(map[string]any), "bearerTokenFile")
	}
	Expect(unstructured.SetNestedSlice(monitor.Object, endpoints, "spec", "endpoints")).To(Succeed())
	monitor.SetName("e2e-anonymous")
	monitor.SetNamespace(operatorNamespace)
	out, err := yaml.Marshal(monitor.Object)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// panelFigure is what a dashboard panel must show of the fleet
// dashboardFleet makes: each series with the labels, of any of the panel's
// queries, has a value value matches.
type panelFigure struct {
	panel  string
	labels map[string]string
	value  types.GomegaMatcher
}

// fleetFigures are the figures the fleet guarantees: a resource of each
// kind from the samples, with a second ImmortalContainer that crashes and
// two more WebServers, one of whose Service name is taken; and the
// repairs of repairDrift. The refusal of the taken name is not among
// them: its panel shows a counter's increase, which Prometheus reads as
// none for a series whose first scrape holds its first count.
func fleetFigures() []panelFigure {
	return []panelFigure{
		{"Resources", map[string]string{"kind": "WebServer"}, BeEquivalentTo(3)},
		{"Resources", map[string]string{"kind": "Echo"}, BeEquivalentTo(1)},
		{"Resources", map[string]string{"kind": "ScheduledEcho"}, BeEquivalentTo(1)},
		{"Resources", map[string]string{"kind": "ImmortalContainer"}, BeEquivalentTo(2)},
		{"Resources", map[string]string{"kind": "DemoVolume"}, BeEquivalentTo(1)},
		{"Not Ready", map[string]string{"kind": "WebServer", "reason": seedv1alpha1.ReasonNameConflict}, BeEquivalentTo(1)},
		{"Drift repairs", map[string]string{"kind": "Deployment"}, BeNumerically(">=", 1)},
		{"WebServers", map[string]string{"__name__": "seed_webserver_replicas_desired", "name": "drifted"}, BeEquivalentTo(1)},
		{"Echoes by phase", map[string]string{"phase": "Succeeded"}, BeEquivalentTo(1)},
		{"DemoVolumes by phase", map[string]string{"phase": "Bound"}, BeEquivalentTo(1)},
		{"Sizes", map[string]string{"name": "demovolume-sample"}, BeEquivalentTo(1 << 30)},
	}
}

// driftManager is the field manager of the fleet's drift.
const driftManager = "e2e-scaler"

// repairDrift scales the fleet's drifted WebServer's Deployment, as
// kubectl scale would, and waits until the operator has scaled it back.
func repairDrift(ctx context.Context, fleet string) {
	d := &appsv1.Deployment{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: fleet, Name: "drifted"}, d)).To(Succeed())
	testenv.EditAs(ctx, k8sClient, d, driftManager, `{"spec":{"replicas":3}}`)
	Eventually(ctx, func(g Gomega) int32 {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(d), d)).To(Succeed())
		return ptr.Deref(d.Spec.Replicas, 0)
	}).Should(BeEquivalentTo(1), "the drifted Deployment scaled back")
}

// hasLabels tells whether metric has each of labels, with its value.
func hasLabels(metric, labels map[string]string) bool {
	for k, v := range labels {
		if metric[k] != v {
			return false
		}
	}
	return true
}

// panelQuery is a query of a dashboard panel.
type panelQuery struct{ panel, expr string }

// dashboardQueries are the queries of the dashboard config/grafana ships,
// as Prometheus can run them, of every namespace.
func dashboardQueries() []panelQuery {
	return dashboardQueriesIn(".*")
}

// dashboardQueriesIn are the dashboard's queries with the namespaces
// regexp for $namespace.
func dashboardQueriesIn(namespaces string) []panelQuery {
	d, err := testenv.ReadDashboard()
	Expect(err).NotTo(HaveOccurred())
	var queries []panelQuery
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			queries = append(queries, panelQuery{panel: p.Title, expr: testenv.DashboardQuery(t.Expr, namespaces)})
		}
	}
	return queries
}
