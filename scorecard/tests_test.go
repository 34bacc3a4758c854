package main

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// The dry run against a real API server with the CRDs installed, as the
// service account docs/olm.md binds for the scorecard (the editor role in the
// test namespace): it passes with the bundle's examples, and fails, naming
// the example, when one is invalid.
func TestDryRun(t *testing.T) {
	g := NewWithT(t)
	env, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(env.Stop()).To(Succeed()) })
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "scorecard-"}}
	g.Expect(env.Client.Create(ctx, ns)).To(Succeed())

	scorecard, err := env.ClientAs(ctx, "system:serviceaccount:"+ns.Name+":seed-scorecard", "editor_role.yaml", ns.Name)
	g.Expect(err).NotTo(HaveOccurred())

	examples, err := almExamples(filepath.Join(testenv.ProjectRoot(), "bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(examples).To(HaveLen(len(kinds)))

	result := dryRun(ctx, scorecard, ns.Name, examples)
	g.Expect(result.State).To(Equal(scapiv1alpha3.PassState), "%v", result.Errors)
	g.Expect(result.Log).To(MatchRegexp(`WebServer webserver-sample-\w{5}: accepted`))

	// The examples a user created already do not get in the way.
	for _, example := range examples {
		created := example.DeepCopy()
		created.SetNamespace(ns.Name)
		g.Expect(scorecard.Create(ctx, created)).To(Succeed())
	}
	result = dryRun(ctx, scorecard, ns.Name, examples)
	g.Expect(result.State).To(Equal(scapiv1alpha3.PassState), "%v", result.Errors)

	g.Expect(unstructured.SetNestedField(examples[0].Object, int64(0), "spec", "size")).To(Succeed())
	result = dryRun(ctx, scorecard, ns.Name, examples)
	g.Expect(result.State).To(Equal(scapiv1alpha3.FailState))
	g.Expect(result.Errors).To(ConsistOf(ContainSubstring("DemoVolume demovolume-sample")))
}

func TestReadyCondition(t *testing.T) {
	condition := func(status string, generation int64) map[string]any {
		return map[string]any{
			"type": "Ready", "status": status, "reason": "Because", "message": "it is so",
			"observedGeneration": generation, "lastTransitionTime": "2026-01-01T00:00:00Z",
		}
	}
	tests := []struct {
		name       string
		conditions []any
		want       bool
	}{
		{name: "no conditions", want: false},
		{name: "ready for this generation", conditions: []any{condition("True", 2)}, want: true},
		{name: "ready for an earlier generation", conditions: []any{condition("True", 1)}, want: false},
		{name: "not ready", conditions: []any{condition("False", 2)}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			obj.SetGeneration(2)
			if tt.conditions != nil {
				g.Expect(unstructured.SetNestedSlice(obj.Object, tt.conditions, "status", "conditions")).To(Succeed())
			}
			got, _ := readyCondition(obj)
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

// The scorecard configuration runs every test of this program, and only
// those.
func TestTheConfigurationRunsEveryTest(t *testing.T) {
	g := NewWithT(t)
	config := &scapiv1alpha3.Configuration{}
	g.Expect(testenv.ReadYAML(filepath.Join(testenv.ProjectRoot(), "bundle", "tests", "scorecard", "config.yaml"), config)).To(Succeed())
	var configured []string
	for _, stage := range config.Stages {
		for _, test := range stage.Tests {
			if test.Entrypoint[0] == "seed-scorecard" {
				configured = append(configured, test.Entrypoint[1])
			}
		}
	}
	g.Expect(configured).To(ConsistOf(testNames()))
	g.Expect(testNames()).To(HaveLen(1 + len(kinds)))
}
