// Package selfmonitor keeps the ServiceMonitor and the PrometheusRule that
// have prometheus-operator scrape the operator and alert on what it runs,
// while prometheus-operator's CRDs are served.
//
// OLM cannot ship them in the bundle: it fails the whole InstallPlan when a
// bundle object's kind is not served, so a bundle with a ServiceMonitor
// installs only where prometheus-operator already is. The operator creates
// them instead, as soon as the CRDs are served, whenever that is.
package selfmonitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// DefaultPeriod is how often the keeper looks for the CRDs and puts the
// objects back: a minute, as prometheus-operator may be installed at any
// time, for the price of one discovery request and two applies.
const DefaultPeriod = time.Minute

// Keeper applies the objects for a metrics Service each period, while
// their kinds are served. It runs on the leader only.
type Keeper struct {
	// Client applies the objects; Reader reads the Service from the API
	// server, as the manager's cache may not hold the operator's namespace.
	Client    client.Client
	Reader    client.Reader
	Discovery discovery.DiscoveryInterface
	Service   types.NamespacedName
	// Manifests are what Objects makes the objects from.
	Manifests [][]byte
	Period    time.Duration
	Log       logr.Logger

	// synced and served say how many of the kinds the last sync found
	// served, so that only changes are logged.
	synced bool
	served int
}

// NeedLeaderElection tells the manager to run the keeper on the leader.
func (k *Keeper) NeedLeaderElection() bool { return true }

// Start syncs at once and then each period, until ctx is done. A failed
// sync is logged and tried again at the next period.
func (k *Keeper) Start(ctx context.Context) error {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := k.Sync(ctx); err != nil {
			k.Log.Error(err, "Keeping the ServiceMonitor and PrometheusRule", "service", k.Service.String())
		}
	}, k.Period)
	return nil
}

// Sync applies the objects whose kinds are served, and nothing where
// prometheus-operator's API is not.
func (k *Keeper) Sync(ctx context.Context) error {
	served, err := k.servedKinds()
	if err != nil {
		return err
	}
	k.logChange(served)
	if len(served) == 0 {
		return nil
	}
	service := &corev1.Service{}
	if err := k.Reader.Get(ctx, k.Service, service); err != nil {
		return fmt.Errorf("reading the metrics Service: %w", err)
	}
	objects, err := Objects(service, k.Manifests...)
	if err != nil {
		return err
	}
	var errs []error
	for _, object := range objects {
		if !served[object.GetKind()] {
			continue
		}
		if err := k.apply(ctx, object, service); err != nil {
			errs = append(errs, fmt.Errorf("applying %s %s: %w", object.GetKind(), client.ObjectKeyFromObject(object), err))
		}
	}
	return errors.Join(errs...)
}

// apply applies object, unless an object of its name exists that the
// Service does not own: someone's own ServiceMonitor named after the
// Service, say, which is left as it is.
func (k *Keeper) apply(ctx context.Context, object *unstructured.Unstructured, service *corev1.Service) error {
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(object.GroupVersionKind())
	err := k.Reader.Get(ctx, client.ObjectKeyFromObject(object), existing)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case !slices.ContainsFunc(existing.GetOwnerReferences(), func(o metav1.OwnerReference) bool { return o.UID == service.UID }):
		k.Log.V(1).Info("Leaving alone an object that is not the operator's", "kind", object.GetKind(), "name", object.GetName())
		return nil
	}
	return k.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(object), client.FieldOwner(kube.FieldManager), client.ForceOwnership)
}

// servedKinds are the kinds of prometheus-operator's API the API server
// serves: none when the group is not installed.
func (k *Keeper) servedKinds() (map[string]bool, error) {
	resources, err := k.Discovery.ServerResourcesForGroupVersion(Group + "/" + Version)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discovering %s/%s: %w", Group, Version, err)
	}
	served := map[string]bool{}
	for _, r := range resources.APIResources {
		served[r.Kind] = true
	}
	return served, nil
}

func (k *Keeper) logChange(served map[string]bool) {
	if k.synced && len(served) == k.served {
		return
	}
	k.synced, k.served = true, len(served)
	if len(served) == 0 {
		k.Log.Info("prometheus-operator's API is not served: no ServiceMonitor or PrometheusRule until it is", "service", k.Service.String())
		return
	}
	k.Log.Info("prometheus-operator's API is served: keeping a ServiceMonitor and a PrometheusRule", "service", k.Service.String())
}
