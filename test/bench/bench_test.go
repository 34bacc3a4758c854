package main

import (
	"testing"

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
