package apply

import (
	"encoding/json"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/seed-operators/seed-operator/internal/apply/applytest"
)

// Of a field applied whole, digest must tell apart exactly the values
// value.Equals tells apart, which is what the Applier compared before the
// cache kept only digests.
func TestDigest(t *testing.T) {
	replicas := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "replicas"))
	minReady := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "minReadySeconds"))
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
		{name: "the same value under other fields", a: int64(1), b: int64(1), fieldsB: minReady},
	}
	// Any value is read whole at a scalar field: the walk does not validate.
	kind, err := typeOf(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	if err != nil {
		t.Fatal(err)
	}
	deployment := func(fields *fieldpath.Set, v any) value.Value {
		spec := map[string]any{}
		fields.Leaves().Iterate(func(p fieldpath.Path) { spec[*p[1].FieldName] = v })
		return value.NewValueInterface(map[string]any{"spec": spec})
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
			da, err := digest(replicas, deployment(replicas, tt.a), kind)
			g.Expect(err).NotTo(HaveOccurred())
			db, err := digest(fieldsB, deployment(fieldsB, tt.b), kind)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantEquals {
				g.Expect(da).To(Equal(db))
			} else {
				g.Expect(da).NotTo(Equal(db))
			}
		})
	}
}

// A remembered desired object is the one computed afresh, whatever part
// of the configuration changed since the memo was first asked.
func TestTypedDesiredRemembered(t *testing.T) {
	tests := []struct {
		name   string
		change func(*appsv1ac.DeploymentApplyConfiguration)
		// same is whether the digest stays: the identity fields are not
		// among those it reads.
		same bool
	}{
		{name: "nothing", change: func(*appsv1ac.DeploymentApplyConfiguration) {}, same: true},
		{name: "the image", change: func(d *appsv1ac.DeploymentApplyConfiguration) {
			d.Spec.Template.Spec.Containers[0].WithImage("nginx:1.28")
		}},
		{name: "the replicas", change: func(d *appsv1ac.DeploymentApplyConfiguration) { d.Spec.WithReplicas(3) }},
		{name: "a label", change: func(d *appsv1ac.DeploymentApplyConfiguration) { d.WithLabels(map[string]string{"tier": "web"}) }},
		{name: "the namespace", change: func(d *appsv1ac.DeploymentApplyConfiguration) { d.WithNamespace("other") }, same: true},
		{name: "a field set to its zero value", change: func(d *appsv1ac.DeploymentApplyConfiguration) { d.Spec.WithPaused(false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			first, err := typedDesired(applytest.Deployment("nginx:1.27"))
			g.Expect(err).NotTo(HaveOccurred())

			config := applytest.Deployment("nginx:1.27")
			tt.change(config)
			got, err := typedDesired(config)
			g.Expect(err).NotTo(HaveOccurred())
			data, err := json.Marshal(config)
			g.Expect(err).NotTo(HaveOccurred())
			afresh, err := newDesiredObject(got.gvk, data)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(afresh))
			g.Expect(got.gvk).To(Equal(appsv1.SchemeGroupVersion.WithKind("Deployment")))
			if tt.same {
				g.Expect(got.digest).To(Equal(first.digest))
			} else {
				g.Expect(got.digest).NotTo(Equal(first.digest))
			}
		})
	}
}

// The digest of a live object reads the fields of the operator's entry
// alone, and each as the apply owns it: a granular list or map by its
// presence, an atomic one whole, a list item by its keys as the API server
// names it.
func TestDigestReadsTheAppliedFields(t *testing.T) {
	nginx := applytest.Deployment("nginx:1.27")
	service := corev1ac.Service("web", "ns").WithSpec(corev1ac.ServiceSpec().
		WithSelector(map[string]string{"app": "a"}).
		WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80).WithTargetPort(intstr.FromString("http"))))
	deployment := func(change func(d *appsv1.Deployment)) func(t *testing.T) client.Object {
		return func(t *testing.T) client.Object {
			d := applytest.AppliedDeployment(t, nginx, nil)
			change(d)
			return d
		}
	}
	pod := func(d *appsv1.Deployment) *corev1.PodSpec { return &d.Spec.Template.Spec }
	tests := []struct {
		name    string
		desired ApplyConfiguration
		live    func(t *testing.T) client.Object
		want    bool
	}{
		{
			name:    "as applied",
			desired: nginx,
			live:    deployment(func(*appsv1.Deployment) {}),
			want:    true,
		},
		{
			name:    "others' fields beside the operator's, and in what it applied empty",
			desired: nginx,
			live: deployment(func(d *appsv1.Deployment) {
				d.Labels["team"] = "web"
				d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
				pod(d).SecurityContext.RunAsUser = ptr.To[int64](1000)
				pod(d).Volumes[0].EmptyDir.Medium = corev1.StorageMediumMemory
				pod(d).Containers = append(pod(d).Containers, corev1.Container{Name: "sidecar", Image: "proxy"})
			}),
			want: true,
		},
		{
			name:    "a key the server defaults",
			desired: service,
			live: func(t *testing.T) client.Object {
				s := &corev1.Service{}
				applytest.ApplyTo(t, service, s)
				s.Spec.Ports[0].Protocol = corev1.ProtocolTCP
				return s
			},
			want: true,
		},
		{
			name:    "a value changed in an applied item",
			desired: nginx,
			live:    deployment(func(d *appsv1.Deployment) { pod(d).Containers[0].Ports[0].ContainerPort = 80 }),
		},
		{
			name:    "an item more in an atomic list",
			desired: nginx,
			live: deployment(func(d *appsv1.Deployment) {
				caps := pod(d).Containers[0].SecurityContext.Capabilities
				caps.Drop = append(caps.Drop, "NET_RAW")
			}),
		},
		{
			name:    "a key more in an atomic map",
			desired: nginx,
			live:    deployment(func(d *appsv1.Deployment) { d.Spec.Selector.MatchLabels["tier"] = "web" }),
		},
		{
			name:    "an applied item gone",
			desired: nginx,
			live:    deployment(func(d *appsv1.Deployment) { pod(d).Volumes = nil }),
		},
		{
			name:    "an applied field gone",
			desired: nginx,
			live:    deployment(func(d *appsv1.Deployment) { pod(d).Containers[0].ReadinessProbe.PeriodSeconds = 0 }),
		},
		{
			name:    "an applied empty map gone",
			desired: nginx,
			live:    deployment(func(d *appsv1.Deployment) { pod(d).Volumes[0].EmptyDir = nil }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			upToDate, err := UpToDate(tt.desired, tt.live(t))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(upToDate).To(Equal(tt.want))
		})
	}
}

// The digest is taken of every object the cache stores and of every desired
// object the Applier compares: what it costs, for a WebServer's Deployment.
func BenchmarkDigest(b *testing.B) {
	config := applytest.Deployment("nginx:1.27")
	b.Run("desired", func(b *testing.B) {
		b.ReportAllocs()
		revision := 0
		for b.Loop() {
			// A new annotation each time: never remembered.
			revision++
			config.WithAnnotations(map[string]string{"revision": strconv.Itoa(revision)})
			if _, err := typedDesired(config); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("desired, remembered", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := typedDesired(config); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		live := applytest.AppliedDeployment(b, config, nil)
		gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AppliedDigest(live, gvk); err != nil {
				b.Fatal(err)
			}
		}
	})
}
