package demovolume

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/volumestats"
)

func TestGrownSize(t *testing.T) {
	autoGrow := func(step *intstr.IntOrString) *seedv1alpha1.DemoVolumeAutoGrow {
		return &seedv1alpha1.DemoVolumeAutoGrow{ThresholdPercent: 80, Step: step, MaxSize: 10}
	}
	percent := func(used int64) volumestats.Usage {
		return volumestats.Usage{Used: (used*gib + 99) / 100, Capacity: gib}
	}
	for _, tt := range []struct {
		name      string
		g         *seedv1alpha1.DemoVolumeAutoGrow
		request   int64
		usage     volumestats.Usage
		want      int64
		wantAtMax bool
	}{
		{name: "under the threshold", g: autoGrow(nil), request: 1, usage: percent(79)},
		{name: "at the threshold, by the default step", g: autoGrow(nil), request: 1, usage: percent(80), want: 2},
		{name: "by GiB", g: autoGrow(ptr.To(intstr.FromInt32(3))), request: 2, usage: percent(95), want: 5},
		{name: "by a percentage, rounded up", g: autoGrow(ptr.To(intstr.FromString("50%"))), request: 3, usage: percent(90), want: 5},
		{name: "by a small percentage: at least 1 GiB", g: autoGrow(ptr.To(intstr.FromString("1%"))), request: 3, usage: percent(90), want: 4},
		{name: "never past maxSize", g: autoGrow(ptr.To(intstr.FromInt32(5))), request: 8, usage: percent(90), want: 10},
		{name: "at maxSize and full", g: autoGrow(nil), request: 10, usage: percent(99), wantAtMax: true},
		{name: "at maxSize, under the threshold", g: autoGrow(nil), request: 10, usage: percent(10)},
		{name: "no capacity reported", g: autoGrow(nil), request: 1, usage: volumestats.Usage{Used: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, atMax := grownSize(tt.g, tt.request, tt.usage)
			if got != tt.want || atMax != tt.wantAtMax {
				t.Errorf("grownSize: %d GiB, at max %v; want %d, %v", got, atMax, tt.want, tt.wantAtMax)
			}
		})
	}
}

// TestDecideGrowth follows a claim through a sequence of measurements, as
// the kubelet reports them (about each minute, so the same one for a while
// after a growth), growing it as decided.
func TestDecideGrowth(t *testing.T) {
	g := &seedv1alpha1.DemoVolumeAutoGrow{ThresholdPercent: 60, Step: ptr.To(intstr.FromInt32(1)), MaxSize: 5}
	start := time.Date(2026, 11, 28, 9, 43, 0, 0, time.UTC)
	const mib = 1 << 20
	// measured is a measurement at start+seconds of a file system of
	// capacity bytes with used bytes in use.
	measured := func(seconds int, used, capacity int64) volumestats.Usage {
		return volumestats.Usage{Used: used, Capacity: capacity, Time: start.Add(time.Duration(seconds) * time.Second)}
	}
	type step struct {
		usage       volumestats.Usage
		wantRequest int64
		wantStale   bool
		wantAtMax   bool
	}
	for _, tt := range []struct {
		name    string
		request int64
		steps   []step
	}{
		{request: 1, name: "one fill grows once, however often the old file system is read again", steps: []step{
			{usage: measured(0, 800*mib, gib), wantRequest: 2},
			{usage: measured(0, 800*mib, gib), wantRequest: 2, wantStale: true},
			{usage: measured(0, 800*mib, gib), wantRequest: 2, wantStale: true},
			{usage: measured(60, 800*mib, 2*gib), wantRequest: 2},
			{usage: measured(120, 800*mib, 2*gib), wantRequest: 2},
		}},
		{request: 1, name: "a second fill, measured on the grown file system, grows again", steps: []step{
			{usage: measured(0, 800*mib, gib), wantRequest: 2},
			{usage: measured(60, 1300*mib, 2*gib), wantRequest: 3},
			{usage: measured(60, 1300*mib, 2*gib), wantRequest: 3, wantStale: true},
			{usage: measured(120, 1300*mib, 3*gib), wantRequest: 3},
		}},
		{request: 1, name: "a measurement after the growth of the file system not yet grown on the node", steps: []step{
			{usage: measured(0, 800*mib, gib), wantRequest: 2},
			{usage: measured(60, 800*mib, gib), wantRequest: 2, wantStale: true},
			{usage: measured(120, 800*mib, 2*gib), wantRequest: 2},
		}},
		{request: 1, name: "a file system smaller than the request (ext4 on a 1Gi volume)", steps: []step{
			{usage: measured(0, 700*mib, 980*mib), wantRequest: 2},
			{usage: measured(60, 700*mib, 980*mib), wantRequest: 2, wantStale: true},
			{usage: measured(120, 1300*mib, 1990*mib), wantRequest: 3},
			{usage: measured(180, 1300*mib, 1990*mib), wantRequest: 3, wantStale: true},
		}},
		{request: 4, name: "at maxSize, full on the grown file system", steps: []step{
			{usage: measured(0, 4*gib, 4*gib), wantRequest: 5},
			{usage: measured(0, 4*gib, 4*gib), wantRequest: 5, wantStale: true},
			{usage: measured(60, 5*gib, 5*gib), wantRequest: 5, wantAtMax: true},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			request, decided := tt.request, start
			var last *seedv1alpha1.DemoVolumeGrowth
			for i, s := range tt.steps {
				d := decideGrowth(g, request, last, s.usage)
				if d.to != 0 {
					decided = decided.Add(time.Second)
					last = &seedv1alpha1.DemoVolumeGrowth{
						Time: metav1.NewTime(decided), MeasuredCapacity: resource.NewQuantity(s.usage.Capacity, resource.BinarySI).String(),
					}
					request = d.to
				}
				if request != s.wantRequest || d.stale != s.wantStale || d.atMax != s.wantAtMax {
					t.Fatalf("measurement %d (%+v): request %d GiB, stale %v, at max %v; want %d, %v, %v",
						i, s.usage, request, d.stale, d.atMax, s.wantRequest, s.wantStale, s.wantAtMax)
				}
			}
		})
	}
}

func TestMeasuresGrowth(t *testing.T) {
	grown := time.Date(2026, 11, 28, 9, 43, 18, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		last  *seedv1alpha1.DemoVolumeGrowth
		usage volumestats.Usage
		want  bool
	}{
		{name: "never grown", usage: volumestats.Usage{Capacity: gib}, want: true},
		{name: "the file system measured before", last: &seedv1alpha1.DemoVolumeGrowth{MeasuredCapacity: "1Gi"},
			usage: volumestats.Usage{Capacity: gib, Time: grown.Add(time.Minute)}},
		{name: "a larger file system", last: &seedv1alpha1.DemoVolumeGrowth{MeasuredCapacity: "1Gi"},
			usage: volumestats.Usage{Capacity: gib + 1}, want: true},
		{name: "a growth of 0.3.0, measured before it", last: &seedv1alpha1.DemoVolumeGrowth{Time: metav1.NewTime(grown)},
			usage: volumestats.Usage{Capacity: 2 * gib, Time: grown.Add(-time.Second)}},
		{name: "a growth of 0.3.0, measured after it", last: &seedv1alpha1.DemoVolumeGrowth{Time: metav1.NewTime(grown)},
			usage: volumestats.Usage{Capacity: gib, Time: grown.Add(time.Second)}, want: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := measuresGrowth(tt.last, tt.usage); got != tt.want {
				t.Errorf("measuresGrowth: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGrowing(t *testing.T) {
	claimOf := func(request string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{}
		pvc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(request)}
		return pvc
	}
	for _, tt := range []struct {
		name  string
		size  int32
		grown *seedv1alpha1.DemoVolumeGrowth
		live  string
		want  bool
	}{
		{name: "never grown", size: 1, live: "1Gi"},
		{name: "a growth not yet applied", size: 1, grown: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "2Gi"}, live: "1Gi", want: true},
		{name: "a growth applied", size: 1, grown: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "2Gi"}, live: "2Gi"},
		{name: "the spec raised past the growth", size: 3, grown: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "2Gi"}, live: "2Gi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dv := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size, dv.Status.LastGrowth = tt.size, tt.grown })
			if got := growing(dv, claimOf(tt.live)); got != tt.want {
				t.Errorf("growing: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClaimSize(t *testing.T) {
	for _, tt := range []struct {
		name   string
		size   int32
		grown  *seedv1alpha1.DemoVolumeGrowth
		expect string
	}{
		{name: "never grown", size: 1, expect: "1Gi"},
		{name: "grown past the spec", size: 1, grown: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "3Gi"}, expect: "3Gi"},
		{name: "the spec raised past a growth", size: 5, grown: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "3Gi"}, expect: "5Gi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dv := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size, dv.Status.LastGrowth = tt.size, tt.grown })
			if got := claimSize(dv); got.String() != tt.expect {
				t.Errorf("claim size %s, want %s", got.String(), tt.expect)
			}
		})
	}
}
