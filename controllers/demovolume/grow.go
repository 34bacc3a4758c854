package demovolume

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/volumestats"
)

// UsageReader reads how full a claim's volume is (volumestats.Reader).
type UsageReader interface {
	ClaimUsage(ctx context.Context, pv *corev1.PersistentVolume, namespace, name string) (volumestats.Usage, bool, error)
}

// Reasons of AtMaxSize, and of the event of a growth.
const (
	reasonGrown        = "Grown"
	reasonAtMaxSize    = "AtMaxSize"
	reasonBelowMaxSize = "BelowMaxSize"
	reasonUsageUnknown = "UsageUnknown"
	// reasonGrowthUnmeasured: the volume was grown, and no measurement of
	// the grown file system has come yet.
	reasonGrowthUnmeasured = "GrowthUnmeasured"
)

// defaultUsagePoll is how often a DemoVolume with autoGrow is measured
// again: the kubelet measures volumes about each minute (the local
// cluster's, each 10 s).
const defaultUsagePoll = 15 * time.Second

const gib = 1 << 30

// claimSize is the size a DemoVolume's claim asks for: spec.size, or the
// size autoGrow last grew it to when that is larger.
func claimSize(dv *seedv1alpha1.DemoVolume) resource.Quantity {
	size := dv.SizeQuantity()
	if g := dv.Status.LastGrowth; g != nil {
		if to, err := resource.ParseQuantity(g.To); err == nil && to.Cmp(size) > 0 {
			return to
		}
	}
	return size
}

// growthDecision is what autoGrow makes of one measurement of a volume.
type growthDecision struct {
	// to is the size in GiB to grow the claim to, or 0 for none.
	to int64
	// atMax tells that the volume is over its threshold with no room left
	// to grow.
	atMax bool
	// stale tells that the measurement is of the file system before the
	// last growth: it decides nothing, however full it says the volume is.
	stale bool
}

// decideGrowth decides, from a measurement, the growth of a claim of
// request GiB that autoGrow last grew as last says (nil if never).
func decideGrowth(g *seedv1alpha1.DemoVolumeAutoGrow, request int64, last *seedv1alpha1.DemoVolumeGrowth, u volumestats.Usage) growthDecision {
	if !measuresGrowth(last, u) {
		return growthDecision{stale: true}
	}
	to, atMax := grownSize(g, request, u)
	return growthDecision{to: to, atMax: atMax}
}

// measuresGrowth tells whether u measures the file system the last growth
// left: a larger one than that growth was decided on. The request says
// nothing of it (a file system is smaller than its volume, and the kubelet
// may measure before the node has grown it), and neither does the time,
// on another machine's clock. A growth recorded before its measurement
// was (0.3.0) waits for a measurement taken after it.
func measuresGrowth(last *seedv1alpha1.DemoVolumeGrowth, u volumestats.Usage) bool {
	if last == nil {
		return true
	}
	measured, err := resource.ParseQuantity(last.MeasuredCapacity)
	if err != nil {
		return u.Time.After(last.Time.Time)
	}
	return u.Capacity > measured.Value()
}

// grownSize is the size, in GiB, autoGrow grows a claim of request GiB to
// at a usage, or 0 when it does not grow it; atMax tells that it is over
// its threshold with no room left to grow.
func grownSize(g *seedv1alpha1.DemoVolumeAutoGrow, request int64, u volumestats.Usage) (size int64, atMax bool) {
	if u.Capacity <= 0 || u.Used*100 < int64(g.ThresholdPercent)*u.Capacity {
		return 0, false
	}
	maxSize := int64(g.MaxSize)
	if request >= maxSize {
		return 0, true
	}
	return min(request+stepOf(g.Step, request), maxSize), false
}

// stepOf is a step in GiB: a whole number of GiB, or a percentage of the
// request rounded up, at least 1.
func stepOf(step *intstr.IntOrString, request int64) int64 {
	if step == nil {
		return 1
	}
	if step.Type == intstr.Int {
		return max(int64(step.IntVal), 1)
	}
	percent, err := intstr.GetScaledValueFromIntOrPercent(step, int(request), true)
	if err != nil {
		return 1
	}
	return max(int64(percent), 1)
}

// autoGrow measures the volume and decides its growth: the size is
// recorded in status.lastGrowth, which the status write keeps before the
// next reconcile applies it to the claim, so that a growth decided is
// never lost nor made twice.
func (r *Reconciler) autoGrow(ctx context.Context, dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim) error {
	g := dv.Spec.AutoGrow
	if g == nil {
		dv.Status.Usage = nil
		meta.RemoveStatusCondition(&dv.Status.Conditions, seedv1alpha1.DemoVolumeAtMaxSize)
		return nil
	}
	request, capacity := pvc.Spec.Resources.Requests[corev1.ResourceStorage], pvc.Status.Capacity[corev1.ResourceStorage]
	if pvc.Status.Phase != corev1.ClaimBound || r.Usage == nil || capacity.Cmp(request) < 0 {
		// Not bound, or growing: measured again once it has grown.
		return nil
	}
	pv := &corev1.PersistentVolume{}
	if err := r.Applier.APIReader.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv); err != nil {
		return fmt.Errorf("getting the claim's volume %s: %w", pvc.Spec.VolumeName, err)
	}
	usage, ok, err := r.Usage.ClaimUsage(ctx, pv, pvc.Namespace, pvc.Name)
	if err != nil {
		// A kubelet that refuses or cannot be trusted is said in the
		// status, and asked again.
		err = fmt.Errorf("reading the usage of claim %s: %w", pvc.Name, err)
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionUnknown, reasonUsageUnknown, err.Error())
		return err
	}
	if !ok {
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionUnknown, reasonUsageUnknown,
			"No kubelet reports the volume's usage: none does while no pod mounts it")
		return nil
	}
	dv.Status.Usage = &seedv1alpha1.DemoVolumeUsage{
		Used:     resource.NewQuantity(usage.Used, resource.BinarySI).String(),
		Capacity: resource.NewQuantity(usage.Capacity, resource.BinarySI).String(),
		Percent:  int32(usage.Used * 100 / usage.Capacity),
		Time:     metav1.Now(),
	}
	requestGiB := (request.Value() + gib - 1) / gib
	decision := decideGrowth(g, requestGiB, dv.Status.LastGrowth, usage)
	percent := dv.Status.Usage.Percent
	switch {
	case decision.stale:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionUnknown, reasonGrowthUnmeasured, fmt.Sprintf(
			"Grown to %s; waiting for the kubelet to measure the grown file system (it measures about each minute)", dv.Status.LastGrowth.To))
	case decision.atMax:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionTrue, reasonAtMaxSize, fmt.Sprintf(
			"%d%% used, over the %d%% threshold, at the maxSize of %dGi: raise autoGrow.maxSize, or free space", percent, g.ThresholdPercent, g.MaxSize))
	default:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionFalse, reasonBelowMaxSize, fmt.Sprintf(
			"%d%% used; grows at %d%%, up to %dGi", percent, g.ThresholdPercent, g.MaxSize))
	}
	if decision.to == 0 {
		return nil
	}
	to := resource.NewQuantity(decision.to*gib, resource.BinarySI)
	dv.Status.LastGrowth = &seedv1alpha1.DemoVolumeGrowth{
		Time: metav1.Now(), From: request.String(), To: to.String(),
		MeasuredCapacity: resource.NewQuantity(usage.Capacity, resource.BinarySI).String(),
	}
	r.Applier.Recorder.Eventf(dv, pvc, corev1.EventTypeNormal, reasonGrown, "Grow",
		"Growing claim %s from %s to %s: %d%% used, over the %d%% threshold", pvc.Name, request.String(), to.String(), percent, g.ThresholdPercent)
	return nil
}

// growing tells whether the claim dv asks for is larger than live's
// request because autoGrow grew it: applying it is the operator's growth,
// not a repair of someone's change.
func growing(dv *seedv1alpha1.DemoVolume, live *corev1.PersistentVolumeClaim) bool {
	last, size := dv.Status.LastGrowth, claimSize(dv)
	return last != nil && last.To == size.String() && live.Spec.Resources.Requests.Storage().Cmp(size) < 0
}
