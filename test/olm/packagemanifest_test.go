//go:build olm

package olm

import (
	"encoding/base64"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// packageManifest is what OLM's packageserver says of a package: what
// OperatorHub's console shows.
type packageManifest struct {
	Status struct {
		CatalogSource  string `json:"catalogSource"`
		DefaultChannel string `json:"defaultChannel"`
		Channels       []struct {
			Name           string `json:"name"`
			CurrentCSV     string `json:"currentCSV"`
			CurrentCSVDesc struct {
				DisplayName               string                                      `json:"displayName"`
				Description               string                                      `json:"description"`
				Annotations               map[string]string                           `json:"annotations"`
				InstallModes              []operatorsv1alpha1.InstallMode             `json:"installModes"`
				CustomResourceDefinitions operatorsv1alpha1.CustomResourceDefinitions `json:"customresourcedefinitions"`
			} `json:"currentCSVDesc"`
			Entries []struct {
				Name string `json:"name"`
			} `json:"entries"`
		} `json:"channels"`
	} `json:"status"`
}

var _ = Describe("The package, as OperatorHub shows it", func() {
	It("has the bundle's icon, description, channels, descriptors and examples", func(ctx SpecContext) {
		csv := bundleCSV()

		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "packages.operators.coreos.com", Version: "v1", Kind: "PackageManifest"})
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: olmNamespace, Name: packageName}, u)
		}).Should(Succeed())
		pm := &packageManifest{}
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pm)).To(Succeed())

		Expect(pm.Status.CatalogSource).To(Equal(catalogName))
		Expect(pm.Status.DefaultChannel).To(Equal("stable"))
		Expect(pm.Status.Channels).To(HaveLen(2))
		for _, ch := range pm.Status.Channels {
			Expect(ch.Name).To(BeElementOf("candidate", "stable"))
			Expect(ch.CurrentCSV).To(Equal(csvName(version)), "channel %s", ch.Name)
			desc := ch.CurrentCSVDesc
			Expect(desc.DisplayName).To(Equal(csv.Spec.DisplayName))
			Expect(desc.Description).To(Equal(csv.Spec.Description))
			Expect(desc.InstallModes).To(Equal(csv.Spec.InstallModes))
			Expect(desc.Annotations["alm-examples"]).To(MatchJSON(csv.Annotations["alm-examples"]))
			Expect(desc.Annotations["capabilities"]).To(Equal(csv.Annotations["capabilities"]))
			// The packageserver leaves the descriptors out of its
			// answer, to keep it small; the install specs check them in
			// the CSV OLM installs.
			Expect(desc.CustomResourceDefinitions.Owned).To(HaveLen(len(csv.Spec.CustomResourceDefinitions.Owned)))
			for i, crd := range desc.CustomResourceDefinitions.Owned {
				want := csv.Spec.CustomResourceDefinitions.Owned[i]
				Expect(crd).To(Equal(operatorsv1alpha1.CRDDescription{
					Name: want.Name, Version: want.Version, Kind: want.Kind, DisplayName: want.DisplayName, Description: want.Description,
				}))
			}
		}
		// The console shows the package's icon, from the catalog.
		icon, err := clientset.RESTClient().Get().
			AbsPath("/apis/packages.operators.coreos.com/v1/namespaces", olmNamespace, "packagemanifests", packageName, "icon").
			DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(csv.Spec.Icon).To(HaveLen(1))
		want, err := base64.StdEncoding.DecodeString(csv.Spec.Icon[0].Data)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(icon)).To(Equal(string(want)), "the package's icon is the CSV's")

		entries := map[string][]string{}
		for _, ch := range pm.Status.Channels {
			for _, e := range ch.Entries {
				entries[ch.Name] = append(entries[ch.Name], e.Name)
			}
		}
		Expect(entries["candidate"]).To(ConsistOf(csvName("0.1.0"), csvName("0.2.0"), csvName("0.2.1"), csvName("0.2.2"), csvName("0.3.0"), csvName("0.3.1"), csvName(version)))
		Expect(entries["stable"]).To(ConsistOf(csvName("0.2.0"), csvName("0.2.1"), csvName("0.2.2"), csvName("0.3.0"), csvName("0.3.1"), csvName(version)))
	})
})
