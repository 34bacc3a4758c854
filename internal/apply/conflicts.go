package apply

import (
	"context"
	"fmt"
	"maps"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/seed-operators/seed-operator/internal/reconnect"
)

// conflicts watches each object that stands in a custom resource's way (a
// NameConflictError) and reconciles the resource again when the object
// goes away or changes hands, rather than on a timer. The manager's cache
// cannot tell: it holds only the objects the operator labels, and maps
// their events to their own controller.
//
// One watch per conflict, of that object's name alone: conflicts are
// rare, and a watch of every object of a kind would cost the operator
// memory for every Pod or Service in the cluster.
type conflicts struct {
	metadata metadata.Interface
	cache    cache.Informers

	// ctx ends the watches when the manager stops (Start).
	ctx  context.Context
	stop context.CancelFunc

	mu      sync.Mutex
	watches map[conflictKey]context.CancelFunc
	// queues take the owners to reconcile, by the owner's kind.
	queues map[string]chan event.GenericEvent
}

// conflictKey is an object, by kind and name, in an owner's way.
type conflictKey struct {
	kind, namespace, name string
	owner                 types.UID
}

func newConflicts(metadataClient metadata.Interface, informers cache.Informers) *conflicts {
	ctx, stop := context.WithCancel(context.Background())
	return &conflicts{
		metadata: metadataClient,
		cache:    informers,
		ctx:      ctx,
		stop:     stop,
		watches:  map[conflictKey]context.CancelFunc{},
		queues:   map[string]chan event.GenericEvent{},
	}
}

// Start ends the watches when the manager stops. Like the controllers,
// whose reconciles start the watches, it runs only in the leader.
func (c *conflicts) Start(ctx context.Context) error {
	<-ctx.Done()
	c.stop()
	return nil
}

// source is where a controller of ownerKind hears of the owners to
// reconcile again. An owner deleted takes its watches with it.
func (c *conflicts) source(ownerKind string, owner client.Object) (source.Source, error) {
	informer, err := c.cache.GetInformer(context.Background(), owner, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, fmt.Errorf("getting the informer of %s: %w", ownerKind, err)
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if o, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = o.Obj
		}
		if o, ok := obj.(metav1.Object); ok {
			c.forgetOwner(o.GetUID())
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("watching the deletions of %s: %w", ownerKind, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	queue, ok := c.queues[ownerKind]
	if !ok {
		queue = make(chan event.GenericEvent)
		c.queues[ownerKind] = queue
	}
	return source.Channel(queue, &handler.EnqueueRequestForObject{}), nil
}

// watch starts watching the object of key, of resource, for the owner,
// unless it is watched already, and tells whether it was: a conflict
// already watched is one this process has seen begin.
func (c *conflicts) watch(key conflictKey, resource schema.GroupVersionResource, ownerKind string, owner types.NamespacedName) (watched bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, watched := c.watches[key]; watched {
		return true
	}
	queue, ok := c.queues[ownerKind]
	if !ok {
		return false
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.watches[key] = cancel
	go c.run(ctx, resource, key, func() {
		reconcile := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: owner.Name}}
		select {
		case queue <- event.GenericEvent{Object: reconcile}:
		case <-ctx.Done():
		}
	})
	return false
}

// resolved ends the watch of the object of key, if any: the owner has its
// own object by that name now. It runs on every apply, where there is
// mostly no watch to end.
func (c *conflicts) resolved(key conflictKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.watches) == 0 {
		return
	}
	if cancel, ok := c.watches[key]; ok {
		cancel()
		delete(c.watches, key)
	}
}

// forgetOwner ends the watches of an owner that is gone.
func (c *conflicts) forgetOwner(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.DeleteFunc(c.watches, func(key conflictKey, cancel context.CancelFunc) bool {
		if key.owner == uid {
			cancel()
			return true
		}
		return false
	})
}

// run watches the metadata of the object of key until ctx ends, and calls
// changed when it is deleted (or was gone by the time the watch started),
// made again, or changes controller or labels (a DemoVolume's claim may
// become adoptable).
func (c *conflicts) run(ctx context.Context, gvr schema.GroupVersionResource, key conflictKey, changed func()) {
	byName := fields.OneTermEqualSelector("metadata.name", key.name).String()
	resource := c.metadata.Resource(gvr).Namespace(key.namespace)
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			options.FieldSelector = byName
			return resource.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.FieldSelector = byName
			return resource.Watch(ctx, options)
		},
	}
	informer := reconnect.NewInformer(lw, &metav1.PartialObjectMetadata{}, 0, toolscache.Indexers{})
	_, _ = informer.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(_ any, initial bool) {
			if !initial {
				changed()
			}
		},
		UpdateFunc: func(old, obj any) {
			if handsChanged(old, obj) {
				changed()
			}
		},
		DeleteFunc: func(any) { changed() },
	})
	go informer.RunWithContext(ctx)
	if toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) && len(informer.GetStore().ListKeys()) == 0 {
		changed()
	}
}

// handsChanged tells whether an object changed controller or labels.
func handsChanged(old, obj any) bool {
	o, ok1 := old.(*metav1.PartialObjectMetadata)
	n, ok2 := obj.(*metav1.PartialObjectMetadata)
	if !ok1 || !ok2 {
		return true
	}
	oldRef, newRef := metav1.GetControllerOfNoCopy(o), metav1.GetControllerOfNoCopy(n)
	sameController := (oldRef == nil) == (newRef == nil) && (oldRef == nil || oldRef.UID == newRef.UID)
	return !sameController || !maps.Equal(o.Labels, n.Labels)
}
