package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// Event reasons for what the operator does to owned objects.
const (
	ReasonCreated     = "Created"
	ReasonRecreated   = "Recreated"
	ReasonUpdated     = "Updated"
	ReasonRepaired    = "Repaired"
	ReasonApplyFailed = "ApplyFailed"
)

// ApplyConfiguration is a typed apply configuration from client-go, which
// names the object it describes.
type ApplyConfiguration interface {
	runtime.ApplyConfiguration
	GetAPIVersion() *string
	GetKind() *string
	GetName() *string
	GetNamespace() *string
}

// Applier creates and updates the objects a custom resource owns with
// server-side apply, and records on the owner an event for each change. It
// never writes an object its owner does not control (NameConflictError).
type Applier struct {
	// Client reads from the manager's cache.
	Client client.Client
	// Writer applies, and tells whether an apply created its object.
	Writer client.Client
	// APIReader reads from the API server, where the cache may be behind.
	APIReader client.Reader
	Recorder  events.EventRecorder

	conflicts   *conflicts
	terminating *terminating
}

// NewApplier is the Applier of the manager's controllers: it writes as the
// operator's field manager and records events under the operator's name.
func NewApplier(mgr manager.Manager) (*Applier, error) {
	writer, err := newStatusRecordingClient(mgr)
	if err != nil {
		return nil, err
	}
	metadataClient, err := metadata.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, fmt.Errorf("creating the metadata client: %w", err)
	}
	conflicts := newConflicts(metadataClient, mgr.GetCache())
	if err := mgr.Add(conflicts); err != nil {
		return nil, fmt.Errorf("adding the watches of name conflicts: %w", err)
	}
	return &Applier{
		Client:      mgr.GetClient(),
		Writer:      writer,
		APIReader:   mgr.GetAPIReader(),
		Recorder:    mgr.GetEventRecorder(kube.FieldManager),
		conflicts:   conflicts,
		terminating: newTerminating(clock.RealClock{}),
	}, nil
}

// ConflictSource is where the controller of owner's kind hears of the
// owners to reconcile again because an object in their way
// (NameConflictError) went away or changed hands.
func (a *Applier) ConflictSource(owner kube.Object) (source.Source, error) {
	return a.conflicts.source(a.kindOf(owner), owner)
}

// ApplyOption changes how Apply treats an object.
type ApplyOption func(*applyOptions)

type applyOptions struct {
	exclusive  bool
	deliberate bool
	adoptable  Adoptable
}

// Exclusive makes the operator's spec the whole spec of the object: spec
// fields someone else added are removed too. It suits kinds whose spec can
// be rewritten in full, such as Deployments and Services, and not those with
// immutable fields the API server fills in, such as a Job's selector.
func Exclusive() ApplyOption {
	return func(o *applyOptions) { o.exclusive = true }
}

// Deliberate records what Apply makes or changes as the operator's
// decision (Created, Updated), not as drift put back (Recreated, Repaired),
// though the owner's spec did not change: one it took from what it
// observed, such as a rollback, or a claim made once its backup can be
// restored.
func Deliberate() ApplyOption {
	return func(o *applyOptions) { o.deliberate = true }
}

// repairs tells whether what Apply makes or changes for owner puts back
// what someone else removed or changed.
func (o applyOptions) repairs(owner kube.Object) bool {
	return kube.SpecApplied(owner) && !o.deliberate
}

// AdoptIf lets Apply take over an object that the owner does not control
// when adoptable says so.
func AdoptIf(adoptable Adoptable) ApplyOption {
	return func(o *applyOptions) { o.adoptable = adoptable }
}

// absentVersion is a resource version no object has: an apply that carries
// it is refused (409 Conflict) when the object exists, and creates it
// otherwise, since the API server wipes the resource version of an object
// an apply creates.
const absentVersion = "9223372036854775807"

// Apply makes the object in the cluster match desired, provided it is the
// owner's: an object of that name that the owner does not control is left
// as it is, and Apply returns a NameConflictError. Fields that someone else
// changed are taken back (forced ownership), fields the operator does not
// set are left alone unless the apply is Exclusive, and no request is made
// when the cached object already matches. live must be an empty object of
// desired's type; it is filled with the object as the apply left it, or,
// when Apply fails, as it was before, so that the status can still
// describe it (left empty when the object is not the owner's). When
// nothing was sent, that is the cache's copy, which has no spec for a kind
// whose spec no controller reads (Owned). Once the owner's namespace has
// refused an object as being deleted, Apply sends nothing more for it and
// returns that refusal, live left as it was.
func (a *Applier) Apply(ctx context.Context, owner kube.Object, desired ApplyConfiguration, live client.Object, opts ...ApplyOption) (err error) {
	var o applyOptions
	for _, opt := range opts {
		opt(&o)
	}
	kind := ptr.Deref(desired.GetKind(), "")
	key := client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}
	if refusal := a.terminating.refusal(owner); refusal != nil {
		return fmt.Errorf("not applying %s %s: %w", kind, key, refusal)
	}
	defer func() { countRefusal(kind, err) }()

	previous, cached, err := a.cached(ctx, key, live)
	if err != nil {
		return fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	// An object in the cache that is not the owner's may be gone already:
	// the watch of the conflict can bring this reconcile before the cache
	// has seen the object go. The create asks the API server.
	if !cached || !mayApply(owner, previous, o.adoptable) {
		taken, err := a.create(ctx, owner, desired, key, live, o)
		if !taken {
			return err
		}
		// The name is taken: by someone else's object, which the cache does
		// not hold, or by one the operator made and the cache has not seen
		// yet (or no longer holds, its labels removed).
		if previous, err = a.byName(ctx, key, live); err != nil {
			return fmt.Errorf("reading %s %s, whose name is taken: %w", kind, key, err)
		}
	}
	if err := a.checkControlled(ctx, owner, kind, previous, o.adoptable); err != nil {
		return err
	}
	return a.update(ctx, owner, desired, key, previous, live, o)
}

// create creates the object desired describes, unless one of its name
// exists: then it tells that the name is taken. On success, live is the
// object created.
func (a *Applier) create(
	ctx context.Context, owner kube.Object, desired ApplyConfiguration, key client.ObjectKey, live client.Object, o applyOptions,
) (taken bool, err error) {
	kind := ptr.Deref(desired.GetKind(), "")
	om := objectMeta(desired)
	om.ResourceVersion = ptr.To(absentVersion)
	_, err = a.apply(ctx, owner, desired, key, nil, nil, live)
	om.ResourceVersion = nil
	if err != nil {
		return apierrors.IsConflict(err), err
	}
	a.conflicts.resolved(conflictKey{kind: kind, namespace: key.Namespace, name: key.Name, owner: owner.GetUID()})
	a.recordChange(ctx, owner, live, kind, true, true, o.repairs(owner), nil)
	return false, nil
}

// update applies desired to previous, an object of the owner's, as the
// cache or the API server has it, unless it already matches.
func (a *Applier) update(
	ctx context.Context, owner kube.Object, desired ApplyConfiguration, key client.ObjectKey, previous, live client.Object, o applyOptions,
) error {
	kind := ptr.Deref(desired.GetKind(), "")
	want, err := typedDesired(desired)
	if err != nil {
		return fmt.Errorf("reading the desired %s %s: %w", kind, key, err)
	}
	var foreign []string
	if o.exclusive {
		if foreign, err = strayManagers(previous, desired); err != nil {
			return fmt.Errorf("reading who manages %s %s: %w", kind, key, err)
		}
	}
	if len(foreign) == 0 && previous.GetDeletionTimestamp().IsZero() {
		upToDate, err := want.upToDate(previous)
		if err != nil {
			return fmt.Errorf("comparing %s %s with the cluster: %w", kind, key, err)
		}
		if upToDate {
			copyInto(live, previous)
			return nil
		}
	}

	created, err := a.apply(ctx, owner, desired, key, previous, foreign, live)
	if err != nil {
		copyInto(live, previous)
		return err
	}
	changed := len(foreign) > 0 || previous.GetResourceVersion() != live.GetResourceVersion()
	a.recordChange(ctx, owner, live, kind, created, changed, o.repairs(owner), foreign)
	return nil
}

// recordChange records on owner an event for what an apply did to live, if
// it did anything (changeReason), or keeps it for GatherEvents' record, and
// counts a repair of drift, which the foreign managers' fields removed (if
// any) tell the source of.
func (a *Applier) recordChange(
	ctx context.Context, owner kube.Object, live client.Object, kind string, created, changed, repair bool, foreign []string,
) {
	reason, verb := changeReason(created, changed, repair)
	if reason == "" {
		return
	}
	if reason == ReasonRepaired || reason == ReasonRecreated {
		countRepair(kind, foreign)
	}
	if !gather(ctx, owner, live, kind, reason, verb) {
		a.Recorder.Eventf(owner, live, corev1.EventTypeNormal, reason, verb, "%s %s %s", reason, kind, live.GetName())
	}
}

// objectMeta is the metadata of a typed apply configuration, which every
// one of client-go's embeds.
func objectMeta(desired ApplyConfiguration) *metav1ac.ObjectMetaApplyConfiguration {
	v := reflect.ValueOf(desired).Elem().FieldByName("ObjectMetaApplyConfiguration")
	m, _ := v.Interface().(*metav1ac.ObjectMetaApplyConfiguration)
	return m
}

// byName reads the object of key from the API server, into a copy of empty,
// with a list by name: the list verb the cache needs is all it takes.
func (a *Applier) byName(ctx context.Context, key client.ObjectKey, empty client.Object) (client.Object, error) {
	objects, err := kube.ListOf(a.Client.Scheme(), empty)
	if err != nil {
		return nil, err
	}
	if err := a.APIReader.List(ctx, objects, client.InNamespace(key.Namespace), client.MatchingFields{"metadata.name": key.Name}); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(objects)
	if err != nil {
		return nil, err
	}
	if len(items) != 1 {
		return nil, fmt.Errorf("%s %s was deleted meanwhile", a.kindOf(empty), key)
	}
	found, _ := items[0].(client.Object)
	return found, nil
}

// apply applies desired, after removing the spec fields that the foreign
// managers added to previous, and tells whether it created the object. On
// success, live, an empty object of desired's type, is the API server's
// answer; on failure it is left empty.
//
// The apply is a patch of the typed object rather than controller-runtime's
// Apply of the configuration: the answer then comes as protobuf for the
// built-in kinds, decoded once into live, where Apply reads it as JSON into
// the configuration, which then takes another round trip through JSON to
// become a typed object.
func (a *Applier) apply(
	ctx context.Context, owner kube.Object, desired ApplyConfiguration, key client.ObjectKey, previous client.Object, foreign []string,
	live client.Object,
) (bool, error) {
	kind := ptr.Deref(desired.GetKind(), "")
	if len(foreign) > 0 {
		if err := a.removeForeignSpecFields(ctx, owner, desired, previous, foreign); err != nil {
			return false, fmt.Errorf("repairing %s %s: %w", kind, key, err)
		}
	}
	body, err := json.Marshal(desired)
	if err != nil {
		return false, fmt.Errorf("encoding the apply of %s %s: %w", kind, key, err)
	}
	answer, _ := live.DeepCopyObject().(client.Object)
	answer.SetNamespace(key.Namespace)
	answer.SetName(key.Name)
	ctx, status := withResponseStatus(ctx)
	if err := a.Writer.Patch(ctx, answer, client.RawPatch(types.ApplyPatchType, body),
		client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
		err = summarized(err)
		// A namespace being deleted refuses the event as it refused the
		// object, and the owner goes with it. A conflict is a create that
		// found the name taken, which Apply reports as it finds why.
		switch {
		case namespaceTerminating(err):
			a.terminating.learn(ctx, a.Client, a.Client.Scheme(), owner, err)
		case !apierrors.IsConflict(err):
			a.Warn(owner, ReasonApplyFailed, "Apply", "Could not apply %s %s: %v", kind, key.Name, err)
		}
		return false, fmt.Errorf("applying %s %s: %w", kind, key, err)
	}
	copyInto(live, answer)
	return *status == http.StatusCreated, nil
}

// maxEventNote is the longest note, in bytes, the API server takes in an
// event.
const maxEventNote = 1024

// Warn records a warning event on owner, cut to the length an event may
// have: the API server's and the kubelet's messages can be longer, and an
// event that is too long is dropped entirely.
func (a *Applier) Warn(owner kube.Object, reason, action, format string, args ...any) {
	a.Recorder.Eventf(owner, nil, corev1.EventTypeWarning, reason, action, "%s", truncate(fmt.Sprintf(format, args...), maxEventNote))
}

// truncate cuts s to at most limit bytes, on a character boundary, and
// marks the cut with an ellipsis.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// cached reads an object from the cache, into a copy of empty, and tells
// whether the cache has it.
func (a *Applier) cached(ctx context.Context, key client.ObjectKey, empty client.Object) (client.Object, bool, error) {
	obj, _ := empty.DeepCopyObject().(client.Object)
	err := a.Client.Get(ctx, key, obj)
	switch {
	case apierrors.IsNotFound(err):
		return obj, false, nil
	case err != nil:
		return nil, false, err
	}
	return obj, true, nil
}

// copyInto makes dst, a pointer to an object of src's type, a copy of src.
// src must not be used after.
func copyInto(dst, src client.Object) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

// changeReason names what an apply did, for the event on the owner: whether
// the object had to be made or changed, and whether that was the user's
// doing (a new spec) or drift being put back (the spec was already in place).
func changeReason(created, changed, repair bool) (reason, action string) {
	switch {
	case created && repair:
		return ReasonRecreated, "Create"
	case created:
		return ReasonCreated, "Create"
	case !changed:
		return "", ""
	case repair:
		return ReasonRepaired, "Update"
	default:
		return ReasonUpdated, "Update"
	}
}
