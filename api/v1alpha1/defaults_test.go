package v1alpha1

import (
	"os"
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The image default lives twice: in the kubebuilder marker, from which the
// API server defaults it, and in DefaultWebServerImage, which code and tests
// use. This keeps them the same.
func TestWebServerImageDefaultMatchesCRD(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile("../../config/crd/bases/seed.example.com_webservers.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(yaml.Unmarshal(data, crd)).To(Succeed())

	image := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["image"]
	g.Expect(image.Default).NotTo(BeNil())
	g.Expect(string(image.Default.Raw)).To(Equal(`"` + DefaultWebServerImage + `"`))
}
