package apply

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	batchv1ac "k8s.io/client-go/applyconfigurations/batch/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
)

func TestChangeReason(t *testing.T) {
	tests := []struct {
		name                     string
		created, changed, repair bool
		wantReason, wantAction   string
	}{
		{name: "first creation", created: true, repair: false, wantReason: ReasonCreated, wantAction: "Create"},
		{name: "deleted after the spec was in place", created: true, repair: true, wantReason: ReasonRecreated, wantAction: "Create"},
		{name: "nothing changed", changed: false, repair: true, wantReason: "", wantAction: ""},
		{name: "nothing changed after a spec change", changed: false, repair: false},
		{name: "a new spec rolled in", changed: true, repair: false, wantReason: ReasonUpdated, wantAction: "Update"},
		{name: "drift put back", changed: true, repair: true, wantReason: ReasonRepaired, wantAction: "Update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			reason, action := changeReason(tt.created, tt.changed, tt.repair)
			g.Expect(reason).To(Equal(tt.wantReason))
			g.Expect(action).To(Equal(tt.wantAction))
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{name: "short enough", in: "abc", limit: 3, want: "abc"},
		{name: "cut with an ellipsis", in: "abcdefgh", limit: 6, want: "abc…"},
		// "é" is two bytes and "…" three: a cut at byte 4 would split the
		// second "é", so it moves before it.
		{name: "never inside a character", in: "aéééé", limit: 7, want: "aé…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := truncate(tt.in, tt.limit)
			g.Expect(got).To(Equal(tt.want))
			g.Expect(len(got)).To(BeNumerically("<=", tt.limit))
		})
	}
}

func TestObjectMeta(t *testing.T) {
	tests := []ApplyConfiguration{
		appsv1ac.Deployment("web", "shop"),
		corev1ac.Service("web-service", "shop"),
		corev1ac.Pod("app-immortalpod", "shop"),
		corev1ac.PersistentVolumeClaim("data", "shop"),
		batchv1ac.Job("hello", "shop"),
		batchv1ac.CronJob("nightly", "shop"),
	}
	for _, desired := range tests {
		t.Run(*desired.GetKind(), func(t *testing.T) {
			g := NewWithT(t)
			objectMeta(desired).ResourceVersion = ptr.To(absentVersion)
			data, err := json.Marshal(desired)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(data)).To(ContainSubstring(`"resourceVersion":"` + absentVersion + `"`))
		})
	}
}
