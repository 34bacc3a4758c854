package demovolume

import (
	"testing"

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
