// Package samples checks that config/samples has one sample of each kind,
// and that the API server accepts every one of them.
package samples

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

const root = "../.."

func TestEverySampleIsAcceptedAndEveryKindHasOne(t *testing.T) {
	g := NewWithT(t)
	env, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(env.Stop()).To(Succeed()) })
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "samples-"}}
	g.Expect(env.Client.Create(ctx, ns)).To(Succeed())

	sampled := map[string]int{}
	for _, file := range kustomizationResources(g, filepath.Join(root, "config", "samples")) {
		sample := &unstructured.Unstructured{}
		readYAML(g, filepath.Join(root, "config", "samples", file), &sample.Object)
		sample.SetNamespace(ns.Name)
		g.Expect(env.Client.Create(ctx, sample, client.DryRunAll)).To(Succeed(), "sample %s", file)
		sampled[sample.GetKind()]++
	}

	kinds := map[string]int{}
	crds, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, file := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		readYAML(g, file, crd)
		kinds[crd.Spec.Names.Kind] = 1
	}
	g.Expect(kinds).NotTo(BeEmpty())
	g.Expect(sampled).To(Equal(kinds), "one sample of each kind")
}

func kustomizationResources(g Gomega, dir string) []string {
	var k struct {
		Resources []string `json:"resources"`
	}
	readYAML(g, filepath.Join(dir, "kustomization.yaml"), &k)
	return k.Resources
}

func readYAML(g Gomega, file string, into any) {
	data, err := os.ReadFile(file)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, into)).To(Succeed(), file)
}
