package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestPercentile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name   string
		values []float64
		p      int
		want   float64
	}{
		{name: "none", values: nil, p: 50, want: 0},
		{name: "one", values: []float64{7}, p: 99, want: 7},
		{name: "median of ten", values: sorted, p: 50, want: 5},
		{name: "p95 of ten is the tenth", values: sorted, p: 95, want: 10},
		{name: "p1 is the first", values: sorted, p: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(percentile(tt.values, tt.p)).To(Equal(tt.want))
		})
	}
}

func TestRequests(t *testing.T) {
	g := NewWithT(t)
	scrape := func(text string) testenv.Metrics {
		m, err := testenv.ParseMetrics(text)
		g.Expect(err).NotTo(HaveOccurred())
		return m
	}
	const header = "# TYPE rest_client_requests_total counter\n"
	before := snapshot{renewals: 10, metrics: scrape(header +
		`rest_client_requests_total{code="200",host="h",method="GET"} 5` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PUT"} 10` + "\n")}
	after := snapshot{renewals: 25, metrics: scrape(header +
		`rest_client_requests_total{code="200",host="h",method="GET"} 5` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PUT"} 26` + "\n" +
		`rest_client_requests_total{code="201",host="h",method="PATCH"} 3` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PATCH"} 4` + "\n" +
		`rest_client_requests_total{code="201",host="h",method="POST"} 2` + "\n")}

	got := requests(before, after)
	g.Expect(got).To(Equal(map[string]float64{"PUT": 1, "PATCH": 7, "POST": 2}),
		"15 renewals are not the operator's work; methods with no request are left out")
	g.Expect(writes(got)).To(Equal(10.0))
}

func TestControlPlaneCPU(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	self := []byte(strconv.Itoa(os.Getpid()) + "\n")
	for _, name := range controlPlane[1:] {
		g.Expect(os.WriteFile(filepath.Join(dir, name), self, 0o600)).To(Succeed())
	}
	_, err := controlPlaneCPU(dir)
	g.Expect(err).To(MatchError(ContainSubstring("the local cluster's kube-apiserver")),
		"a process without a pid file is an error, not 0 s")

	g.Expect(os.WriteFile(filepath.Join(dir, controlPlane[0]), self, 0o600)).To(Succeed())
	// Read this process's CPU time until it has used a tick: the reading
	// spends it.
	var spent float64
	for deadline := time.Now().Add(5 * time.Second); spent == 0 && time.Now().Before(deadline); {
		spent, err = cpuSeconds(os.Getpid())
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(spent).To(BeNumerically(">", 0))
	used, err := controlPlaneCPU(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(used).To(HaveLen(len(controlPlane)))
	g.Expect(used).To(HaveKeyWithValue("etcd", BeNumerically(">=", spent)), "at least what was read before")

	_, err = cpuSeconds(1 << 30)
	g.Expect(err).To(HaveOccurred(), "no such process")
}

func TestCPUSpent(t *testing.T) {
	g := NewWithT(t)
	spent := cpuSpent(map[string]float64{"etcd": 1.5, "kwok": 2}, map[string]float64{"etcd": 4, "kwok": 2, "kube-apiserver": 3})
	g.Expect(spent).To(Equal(map[string]float64{"etcd": 2.5, "kwok": 0, "kube-apiserver": 3}),
		"a process the first reading lacks counts from 0")
	g.Expect(total(spent)).To(Equal(5.5))
	g.Expect(cpuByProcess(map[string]float64{"etcd": 1}, spent)).To(Equal(
		" kube-apiserver 0.0 / 3.0, etcd 1.0 / 2.5, kube-controller-manager 0.0 / 0.0, kube-scheduler 0.0 / 0.0, kwok 0.0 / 0.0, all 1.0 / 5.5"))
}

func TestCPUByProcessOfThreeBursts(t *testing.T) {
	NewWithT(t).Expect(cpuByProcess(map[string]float64{"etcd": 1}, map[string]float64{"kwok": 2}, map[string]float64{"etcd": 3})).To(Equal(
		" kube-apiserver 0.0 / 0.0 / 0.0, etcd 1.0 / 0.0 / 3.0, kube-controller-manager 0.0 / 0.0 / 0.0, kube-scheduler 0.0 / 0.0 / 0.0, kwok 0.0 / 2.0 / 0.0, all 1.0 / 2.0 / 3.0"))
}

func TestWithCustomResource(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			g := NewWithT(t)
			floor := k.withCustomResource()
			baseline := k.baseline.objects(7)
			g.Expect(floor.tracked).To(Equal(k.baseline.tracked), "the baseline's objects are waited for")
			g.Expect(floor.objects(7)).To(Equal(append(baseline, k.operator.objects(7)[0])),
				"the baseline's objects, then the custom resource")
		})
	}
}
