// Package samples checks that config/samples has one sample of each kind,
// and that the API server accepts every one of them.
package samples

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestEverySampleIsAcceptedAndEveryKindHasOne(t *testing.T) {
	g := NewWithT(t)
	env, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(env.Stop()).To(Succeed()) })
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "samples-"}}
	g.Expect(env.Client.Create(ctx, ns)).To(Succeed())

	samples, err := testenv.Samples()
	g.Expect(err).NotTo(HaveOccurred())
	sampled := map[string]int{}
	for _, sample := range samples {
		sample.SetNamespace(ns.Name)
		g.Expect(env.Client.Create(ctx, sample, client.DryRunAll)).To(Succeed(), "sample %s", sample.GetName())
		sampled[sample.GetKind()]++
	}

	kinds := map[string]int{}
	crds, err := filepath.Glob(filepath.Join(testenv.ProjectRoot(), "config", "crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, file := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(testenv.ReadYAML(file, crd)).To(Succeed())
		kinds[crd.Spec.Names.Kind] = 1
	}
	g.Expect(kinds).NotTo(BeEmpty())
	g.Expect(sampled).To(Equal(kinds), "one sample of each kind")
}
