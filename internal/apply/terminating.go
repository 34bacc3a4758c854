package apply

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// terminatingTTL is how long an owner is known to be in a namespace
	// being deleted. A deletion that takes longer costs one more refused
	// apply per owner each time it runs out.
	terminatingTTL = 10 * time.Minute
	// maxTerminating bounds the owners known at once.
	maxTerminating = 1 << 14
)

// terminating knows the owners whose namespace is being deleted, by UID,
// each with the API server's refusal that told: their every create would
// be refused the same way, and the namespace controller deletes each of
// their objects in turn, each deletion bringing one more reconcile.
type terminating struct {
	owners *cache.LRUExpireCache
}

func newTerminating(clock cache.Clock) *terminating {
	return &terminating{owners: cache.NewLRUExpireCacheWithClock(maxTerminating, clock)}
}

// refusal is the refusal that told owner's namespace is being deleted, or
// nil if none did.
func (t *terminating) refusal(owner client.Object) error {
	refusal, ok := t.owners.Get(owner.GetUID())
	if !ok {
		return nil
	}
	err, _ := refusal.(error)
	return err
}

// learn records that owner's namespace refused an object as being deleted,
// for owner and every other owner of its kind that the cache holds in that
// namespace. None of those can be in a later namespace of the same name:
// the API server makes it only once this one is gone, with everything in
// it. A failure to list leaves only owner known.
func (t *terminating) learn(ctx context.Context, cached client.Reader, scheme *runtime.Scheme, owner client.Object, refusal error) {
	t.owners.Add(owner.GetUID(), refusal, terminatingTTL)
	others, err := kube.ListOf(scheme, owner)
	if err != nil {
		return
	}
	if err := cached.List(ctx, others, client.InNamespace(owner.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		return
	}
	_ = meta.EachListItem(others, func(item runtime.Object) error {
		if other, ok := item.(client.Object); ok {
			t.owners.Add(other.GetUID(), refusal, terminatingTTL)
		}
		return nil
	})
}
