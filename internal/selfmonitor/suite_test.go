package selfmonitor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var env *testenv.Env

// TestKeeper runs the keeper as the operator, with the bundle's Role for
// it, against envtest's API server, to which the specs add
// prometheus-operator's API as it runs: the CRDs here are stand-ins that
// keep any spec, as the keeper only names, owns and applies the objects.
func TestKeeper(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "The operator's own ServiceMonitor and PrometheusRule")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	env = testenv.StartSuite(func(*testenv.Env) error { return nil })
	role := &rbacv1.Role{}
	Expect(testenv.ReadYAML(filepath.Join(testenv.ProjectRoot(), "config", "manifests", "monitoring_role.yaml"), role)).To(Succeed())
	binding := &rbacv1.RoleBinding{}
	Expect(testenv.ReadYAML(filepath.Join(testenv.ProjectRoot(), "config", "manifests", "monitoring_role_binding.yaml"), binding)).To(Succeed())
	// envtest knows the operator as a user, not as its ServiceAccount.
	binding.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: testenv.OperatorUser}}
	Expect(role.Namespace).To(Equal(testenv.OperatorNamespace))
	Expect(env.Client.Create(ctx, role)).To(Succeed())
	Expect(env.Client.Create(ctx, binding)).To(Succeed())
})

// newKeeper is a keeper of the given Service's objects, as the operator
// runs it, made from the manifests config/prometheus has.
func newKeeper(service string) *Keeper {
	disco, err := discovery.NewDiscoveryClientForConfig(env.Manager.GetConfig())
	Expect(err).NotTo(HaveOccurred())
	manifests, err := shippedManifests()
	Expect(err).NotTo(HaveOccurred())
	return &Keeper{
		Client:    env.Manager.GetClient(),
		Reader:    env.Manager.GetAPIReader(),
		Discovery: disco,
		Service:   types.NamespacedName{Namespace: testenv.OperatorNamespace, Name: service},
		Manifests: manifests,
		Period:    200 * time.Millisecond,
		Log:       GinkgoLogr,
	}
}

// prometheusOperatorCRD stands for one of prometheus-operator's CRDs.
func prometheusOperatorCRD(kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

// get reads, as an administrator, the object of prometheus-operator's kind
// that the keeper names after the metrics Service.
func get(ctx context.Context, g Gomega, kind string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(Group + "/" + Version)
	o.SetKind(kind)
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: testenv.OperatorNamespace, Name: serviceName}, o)).To(Succeed())
	return o
}

func createService(ctx context.Context, name string) *corev1.Service {
	service := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.OperatorNamespace},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 8443}}},
	}
	Expect(env.Client.Create(ctx, service)).To(Succeed())
	return service
}
