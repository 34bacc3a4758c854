package main

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metrics are the operator's Prometheus metrics at one moment.
type metrics map[string]*dto.MetricFamily

func parseMetrics(text string) (metrics, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(strings.NewReader(text))
}

// value is the sum of the named metric's series.
func (m metrics) value(name string) float64 {
	return m.sum(name, nil)
}

// sum is the sum of the named counter's or gauge's series whose labels
// have the given values.
func (m metrics) sum(name string, labels map[string]string) float64 {
	total := 0.0
	for _, series := range m.series(name, labels) {
		total += seriesValue(series)
	}
	return total
}

// by sums the named metric's series that have the given labels by the
// value of one more label.
func (m metrics) by(name, label string, labels map[string]string) map[string]float64 {
	out := map[string]float64{}
	for _, series := range m.series(name, labels) {
		for _, pair := range series.GetLabel() {
			if pair.GetName() == label {
				out[pair.GetValue()] += seriesValue(series)
			}
		}
	}
	return out
}

func (m metrics) series(name string, labels map[string]string) []*dto.Metric {
	family, ok := m[name]
	if !ok {
		return nil
	}
	var matching []*dto.Metric
	for _, series := range family.GetMetric() {
		found := 0
		for _, pair := range series.GetLabel() {
			if want, ok := labels[pair.GetName()]; ok && want == pair.GetValue() {
				found++
			}
		}
		if found == len(labels) {
			matching = append(matching, series)
		}
	}
	return matching
}

func seriesValue(series *dto.Metric) float64 {
	switch {
	case series.Counter != nil:
		return series.Counter.GetValue()
	case series.Gauge != nil:
		return series.Gauge.GetValue()
	default:
		return 0
	}
}
