package echo

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestDesiredJob(t *testing.T) {
	tests := []struct {
		name        string
		echo        *seedv1alpha1.Echo
		wantBackoff *int32
		wantTTL     *int32
		wantImage   string
	}{
		{name: "defaults", echo: newEcho(), wantBackoff: ptr.To[int32](3), wantImage: seedv1alpha1.DefaultEchoImage},
		{
			name: "no retries, another image, the TTL left off while the result is not recorded",
			echo: newEcho(func(e *seedv1alpha1.Echo) {
				e.Spec.BackoffLimit = ptr.To[int32](0)
				e.Spec.TTLSecondsAfterFinished = ptr.To[int32](60)
				e.Spec.Image = "registry.example.com/tools:1"
				e.Status.Phase = seedv1alpha1.EchoRunning
			}),
			wantBackoff: ptr.To[int32](0),
			wantImage:   "registry.example.com/tools:1",
		},
		{
			name: "the TTL once the Echo recorded that it succeeded",
			echo: newEcho(func(e *seedv1alpha1.Echo) {
				e.Spec.TTLSecondsAfterFinished = ptr.To[int32](60)
				e.Status.Phase = seedv1alpha1.EchoSucceeded
			}),
			wantBackoff: ptr.To[int32](3),
			wantTTL:     ptr.To[int32](60),
			wantImage:   seedv1alpha1.DefaultEchoImage,
		},
		{
			name: "a TTL of 0 once the Echo recorded that it failed",
			echo: newEcho(func(e *seedv1alpha1.Echo) {
				e.Spec.TTLSecondsAfterFinished = ptr.To[int32](0)
				e.Status.Phase = seedv1alpha1.EchoFailedPhase
			}),
			wantBackoff: ptr.To[int32](3),
			wantTTL:     ptr.To[int32](0),
			wantImage:   seedv1alpha1.DefaultEchoImage,
		},
		{
			name:      "backoff limit left to Kubernetes when unset",
			echo:      newEcho(func(e *seedv1alpha1.Echo) { e.Spec.BackoffLimit = nil }),
			wantImage: seedv1alpha1.DefaultEchoImage,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			job := desiredJob(tt.echo)

			g.Expect(job.Name).To(HaveValue(Equal("hello")))
			g.Expect(job.Namespace).To(HaveValue(Equal("team-a")), "in the Echo's namespace, not the operator's")
			g.Expect(job.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
			g.Expect(job.Finalizers).To(BeEmpty(), "nothing holds the Job's namespace while the operator is gone")
			g.Expect(job.OwnerReferences).To(HaveLen(1))
			g.Expect(job.OwnerReferences[0].Kind).To(HaveValue(Equal("Echo")))
			g.Expect(job.OwnerReferences[0].UID).To(HaveValue(BeEquivalentTo("uid-1")))
			g.Expect(job.OwnerReferences[0].Controller).To(HaveValue(BeTrue()))
			g.Expect(job.Spec.BackoffLimit).To(Equal(tt.wantBackoff))
			g.Expect(job.Spec.TTLSecondsAfterFinished).To(Equal(tt.wantTTL))
			g.Expect(job.Spec.Template.Spec.Containers[0].Image).To(HaveValue(Equal(tt.wantImage)))
			g.Expect(job.Spec.Template.Spec.Containers[0].Args).To(Equal([]string{"Hello"}))
		})
	}
}
