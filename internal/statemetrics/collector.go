package statemetrics

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// listTimeout bounds a scrape's reads of the cache, which answer at once
// once its informers have synced.
const listTimeout = 10 * time.Second

// resourceKind is a kind of resource the collector reads, with its series.
type resourceKind struct {
	kind    string
	list    func() client.ObjectList
	samples func(obj kube.Object) []sample
}

// kindOf is the kind whose resources are Ts, each with the samples of
// samples.
func kindOf[T kube.Object](kind string, list func() client.ObjectList, samples func(T) []sample) resourceKind {
	return resourceKind{kind: kind, list: list, samples: func(obj kube.Object) []sample { return samples(obj.(T)) }}
}

// kinds are the resources the collector reads, each with its series.
var kinds = []resourceKind{
	kindOf("WebServer", func() client.ObjectList { return &seedv1alpha1.WebServerList{} }, webServerSamples),
	kindOf("Echo", func() client.ObjectList { return &seedv1alpha1.EchoList{} }, echoSamples),
	kindOf("ScheduledEcho", func() client.ObjectList { return &seedv1alpha1.ScheduledEchoList{} }, scheduledEchoSamples),
	kindOf("ImmortalContainer", func() client.ObjectList { return &seedv1alpha1.ImmortalContainerList{} }, immortalContainerSamples),
	kindOf("DemoVolume", func() client.ObjectList { return &seedv1alpha1.DemoVolumeList{} }, demoVolumeSamples),
}

// cacheObjects counts what the cache holds of the objects the operator owns.
var cacheObjects = newMetric("seed_cache_objects",
	"The objects of a kind the operator owns that the manager's cache holds.", prometheus.GaugeValue, []string{"kind"})

// Collector builds the series of every resource in the cache at each
// scrape, and counts the owned objects the cache holds, while its replica
// leads: the replicas that do not lead serve none, so that a query over
// every replica's series counts each resource once.
type Collector struct {
	reader client.Reader
	// owned are empty lists of each kind the operator owns, by kind.
	owned   map[string]client.ObjectList
	leading func() bool
	log     logr.Logger
}

// Register adds the collector of mgr's resources, and of the owned objects
// its cache keeps, to controller-runtime's registry, which the manager's
// metrics endpoint serves.
func Register(mgr manager.Manager, owned ...cached.Owned) error {
	lists, err := listsOf(mgr.GetScheme(), owned)
	if err != nil {
		return err
	}
	elected := mgr.Elected()
	c := &Collector{
		reader: mgr.GetCache(),
		owned:  lists,
		leading: func() bool {
			select {
			case <-elected:
				return true
			default:
				return false
			}
		},
		log: mgr.GetLogger().WithName("statemetrics"),
	}
	if err := ctrlmetrics.Registry.Register(c); err != nil {
		return fmt.Errorf("registering the resources' metrics: %w", err)
	}
	return nil
}

// listsOf makes, for each kind owned, its empty list.
func listsOf(scheme *runtime.Scheme, owned []cached.Owned) (map[string]client.ObjectList, error) {
	lists := map[string]client.ObjectList{}
	for _, o := range owned {
		gvk, err := apiutil.GVKForObject(o.Type, scheme)
		if err != nil {
			return nil, fmt.Errorf("finding the kind of %T: %w", o.Type, err)
		}
		if lists[gvk.Kind], err = kube.ListOf(scheme, o.Type); err != nil {
			return nil, err
		}
	}
	return lists, nil
}

// Describe sends the description of every series the collector makes.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range metrics {
		ch <- m.desc
	}
}

// Collect sends the series of every resource in the cache, and the count
// of owned objects of each kind.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	if !c.leading() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	for _, k := range kinds {
		list, ok := c.list(ctx, k.list())
		if !ok {
			continue
		}
		if err := forEach(list, func(obj kube.Object) {
			c.send(ch, append(resourceSamples(k.kind, obj), k.samples(obj)...))
		}); err != nil {
			c.log.Error(err, "Reading resources for their metrics")
		}
	}
	for kind, empty := range c.owned {
		if list, ok := c.list(ctx, empty.DeepCopyObject().(client.ObjectList)); ok {
			c.send(ch, []sample{{cacheObjects, float64(meta.LenList(list)), []string{kind}}})
		}
	}
}

// list fills list from the cache, with the cache's own copies, which the
// collector only reads.
func (c *Collector) list(ctx context.Context, list client.ObjectList) (client.ObjectList, bool) {
	if err := c.reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		c.log.Error(err, "Listing for the metrics", "list", fmt.Sprintf("%T", list))
		return nil, false
	}
	return list, true
}

func (c *Collector) send(ch chan<- prometheus.Metric, samples []sample) {
	for _, s := range samples {
		m, err := s.constMetric()
		if err != nil {
			c.log.Error(err, "Building a metric", "metric", s.metric.name, "labels", s.labels)
			continue
		}
		ch <- m
	}
}

// forEach calls f with each resource of list.
func forEach(list client.ObjectList, f func(kube.Object)) error {
	return meta.EachListItem(list, func(item runtime.Object) error {
		obj, ok := item.(kube.Object)
		if !ok {
			return fmt.Errorf("%T has no conditions", item)
		}
		f(obj)
		return nil
	})
}
