package v1alpha1

import (
	"os"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Image defaults live twice: in the kubebuilder marker, from which the API
// server defaults them, and in a constant, which code and tests use (and the
// bundle lists as a related image). This keeps them the same.
func TestImageDefaultsMatchTheCRDs(t *testing.T) {
	tests := []struct {
		crd, want string
	}{
		{crd: "seed.example.com_webservers.yaml", want: DefaultWebServerImage},
		{crd: "seed.example.com_echoes.yaml", want: DefaultEchoImage},
		{crd: "seed.example.com_scheduledechoes.yaml", want: DefaultEchoImage},
	}
	for _, tt := range tests {
		t.Run(tt.crd, func(t *testing.T) {
			g := NewWithT(t)
			data, err := os.ReadFile("../../config/crd/bases/" + tt.crd)
			g.Expect(err).NotTo(HaveOccurred())
			crd := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(yaml.Unmarshal(data, crd)).To(Succeed())

			image := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["image"]
			g.Expect(image.Default).NotTo(BeNil())
			g.Expect(string(image.Default.Raw)).To(Equal(`"` + tt.want + `"`))
		})
	}
}

// The rollout's defaults, likewise: the API server's, from the markers, and
// the constants that WebServer's methods fall back to.
func TestRolloutDefaultsMatchTheCRD(t *testing.T) {
	g := NewWithT(t)
	rollout := webServerSpecSchema(g).Properties["rollout"]
	g.Expect(string(rollout.Default.Raw)).To(Equal(`{}`), "the rollout is defaulted, so that its fields are")
	g.Expect(string(rollout.Properties["progressDeadlineSeconds"].Default.Raw)).To(Equal(strconv.Itoa(DefaultProgressDeadlineSeconds)))
	g.Expect(string(rollout.Properties["autoRollback"].Default.Raw)).To(Equal(strconv.FormatBool(DefaultAutoRollback)))
	ws := &WebServer{}
	g.Expect(ws.ProgressDeadlineSeconds()).To(BeEquivalentTo(DefaultProgressDeadlineSeconds))
	g.Expect(ws.AutoRollback()).To(BeTrue())
}

// The autoscaling defaults, likewise.
func TestAutoscalingDefaultsMatchTheCRD(t *testing.T) {
	g := NewWithT(t)
	autoscaling := webServerSpecSchema(g).Properties["autoscaling"]
	g.Expect(string(autoscaling.Properties["minReplicas"].Default.Raw)).To(Equal(strconv.Itoa(DefaultMinReplicas)))
	g.Expect(string(autoscaling.Properties["targetCPUUtilizationPercentage"].Default.Raw)).To(Equal(strconv.Itoa(DefaultTargetCPUUtilizationPercentage)))
	a := &WebServerAutoscaling{}
	g.Expect(a.MinReplicasOrDefault()).To(BeEquivalentTo(DefaultMinReplicas))
	g.Expect(a.TargetCPU()).To(BeEquivalentTo(DefaultTargetCPUUtilizationPercentage))
}

// webServerSpecSchema is the schema of a WebServer's spec, as the CRD has it.
func webServerSpecSchema(g Gomega) apiextensionsv1.JSONSchemaProps {
	data, err := os.ReadFile("../../config/crd/bases/seed.example.com_webservers.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(yaml.Unmarshal(data, crd)).To(Succeed())
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
}
