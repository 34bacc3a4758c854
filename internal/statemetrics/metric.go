package statemetrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// metric is one family of series: its description and type.
type metric struct {
	name      string
	desc      *prometheus.Desc
	valueType prometheus.ValueType
}

// resourceLabels name a resource of a known kind.
var resourceLabels = []string{"namespace", "name"}

// gauge is a gauge of one resource of a kind, labelled with its namespace
// and name, then with the extra labels.
func gauge(name, help string, extra ...string) *metric {
	return newMetric(name, help, prometheus.GaugeValue, append(slices.Clone(resourceLabels), extra...))
}

// counter is a counter of one resource of a kind, as gauge.
func counter(name, help string, extra ...string) *metric {
	return newMetric(name, help, prometheus.CounterValue, append(slices.Clone(resourceLabels), extra...))
}

// kindGauge is a gauge of one resource of any kind, labelled with its kind
// first.
func kindGauge(name, help string, extra ...string) *metric {
	return newMetric(name, help, prometheus.GaugeValue, append(append([]string{"kind"}, resourceLabels...), extra...))
}

// metrics are every family the package defines, which the collector
// describes: a series of one not made by newMetric cannot be sent.
var metrics []*metric

func newMetric(name, help string, valueType prometheus.ValueType, labels []string) *metric {
	m := &metric{name: name, desc: prometheus.NewDesc(name, help, labels, nil), valueType: valueType}
	metrics = append(metrics, m)
	return m
}

// sample is one series' value, its labels in the order of its metric's.
type sample struct {
	metric *metric
	value  float64
	labels []string
}

func (s sample) constMetric() (prometheus.Metric, error) {
	return prometheus.NewConstMetric(s.metric.desc, s.metric.valueType, s.value, s.labels...)
}

// boolValue is 1 for true, 0 for false: how Prometheus spells a state.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
