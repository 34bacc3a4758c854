package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// digest must tell apart exactly the values value.Equals tells apart, which
// is what the Applier compared before the cache kept only digests.
func TestDigest(t *testing.T) {
	replicas := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "replicas"))
	image := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "image"))
	tests := []struct {
		name       string
		a, b       any
		fieldsB    *fieldpath.Set
		wantEquals bool
	}{
		{name: "the same map", a: map[string]any{"x": int64(1), "y": "a"}, b: map[string]any{"y": "a", "x": int64(1)}, wantEquals: true},
		{name: "a whole float is its integer", a: int64(2), b: float64(2), wantEquals: true},
		{name: "another integer", a: int64(2), b: int64(3)},
		{name: "a fraction", a: int64(2), b: 2.5},
		{name: "a string of the number", a: int64(1), b: "1"},
		{name: "true and its string", a: true, b: "true"},
		{name: "a list in another order", a: []any{"a", "b"}, b: []any{"b", "a"}},
		{name: "a list of one string and of two", a: []any{"ab"}, b: []any{"a", "b"}},
		{name: "a key moved into the value", a: map[string]any{"a": "bc"}, b: map[string]any{"ab": "c"}},
		{name: "null and an empty map", a: nil, b: map[string]any{}},
		{name: "null and an empty string", a: nil, b: ""},
		{name: "a key more", a: map[string]any{"x": int64(1)}, b: map[string]any{"x": int64(1), "y": nil}},
		{name: "the same value under other fields", a: int64(1), b: int64(1), fieldsB: image},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a, b := value.NewValueInterface(tt.a), value.NewValueInterface(tt.b)
			g.Expect(value.Equals(a, b)).To(Equal(tt.wantEquals || tt.fieldsB != nil), "the case's premise")
			fieldsB := replicas
			if tt.fieldsB != nil {
				fieldsB = tt.fieldsB
			}
			da, err := digest(replicas, a)
			g.Expect(err).NotTo(HaveOccurred())
			db, err := digest(fieldsB, b)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantEquals {
				g.Expect(da).To(Equal(db))
			} else {
				g.Expect(da).NotTo(Equal(db))
			}
		})
	}
}
