package demovolume

import (
	"errors"
	"fmt"
	"testing"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
)

// claimWith is the claim "data" with the given status, bound to a volume
// when its phase says so.
func claimWith(status corev1.PersistentVolumeClaimStatus) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "team-a"}, Status: status}
	if status.Phase == corev1.ClaimBound {
		pvc.Spec.VolumeName = "pv-0001"
	}
	return pvc
}

func capacity(size string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}
}

func TestComputeStatus(t *testing.T) {
	tests := []struct {
		name     string
		pvc      *corev1.PersistentVolumeClaim
		applyErr error

		wantPhase    corev1.PersistentVolumeClaimPhase
		wantCapacity string
		wantBound    metav1.ConditionStatus
		wantBoundWhy string
		wantResizing metav1.ConditionStatus
		wantResizeBy string
		wantReady    metav1.ConditionStatus
		wantReason   string
		wantMessage  string
	}{
		{
			name:         "apply failed before the claim existed",
			pvc:          &corev1.PersistentVolumeClaim{},
			applyErr:     errors.New("applying PersistentVolumeClaim team-a/data: forbidden: exceeded quota"),
			wantBound:    metav1.ConditionFalse,
			wantBoundWhy: reasonPending,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   seedv1alpha1.ReasonReconcileFailed,
			wantMessage:  "exceeded quota",
		},
		{
			name:         "the claim's name taken by someone else's",
			pvc:          &corev1.PersistentVolumeClaim{},
			applyErr:     &apply.NameConflictError{Kind: "PersistentVolumeClaim", Name: "data", OwnerKind: "DemoVolume", OwnerName: "data"},
			wantBound:    metav1.ConditionUnknown,
			wantBoundWhy: seedv1alpha1.ReasonNameConflict,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   seedv1alpha1.ReasonNameConflict,
			wantMessage:  "PersistentVolumeClaim data already exists",
		},
		{
			// The error wins over a claim that looks fine: its status is
			// the claim as it was, not as the spec now wants it.
			name:         "apply failed on a bound claim",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("10Gi")}),
			applyErr:     errors.New("applying PersistentVolumeClaim team-a/data: spec is immutable"),
			wantPhase:    corev1.ClaimBound,
			wantCapacity: "10Gi",
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   seedv1alpha1.ReasonReconcileFailed,
			wantMessage:  "spec is immutable",
		},
		{
			name:         "pending",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}),
			wantPhase:    corev1.ClaimPending,
			wantBound:    metav1.ConditionFalse,
			wantBoundWhy: reasonPending,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonPending,
			wantMessage:  "Claim data is not bound",
		},
		{
			// Just created: the PV controller has not even set a phase.
			name:         "no phase yet",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{}),
			wantBound:    metav1.ConditionFalse,
			wantBoundWhy: reasonPending,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonPending,
		},
		{
			name:         "bound at the size asked for",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("10Gi")}),
			wantPhase:    corev1.ClaimBound,
			wantCapacity: "10Gi",
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionTrue,
			wantReason:   reasonBound,
			wantMessage:  "Claim data is bound, with 10Gi",
		},
		{
			// A provisioner may round up; more than asked for is at size.
			name:         "bound to a larger volume",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("12Gi")}),
			wantPhase:    corev1.ClaimBound,
			wantCapacity: "12Gi",
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionTrue,
			wantReason:   reasonBound,
		},
		{
			name:         "growing, with no word from the resizer",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("5Gi")}),
			wantPhase:    corev1.ClaimBound,
			wantCapacity: "5Gi",
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionTrue,
			wantResizeBy: reasonResizing,
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonResizing,
			wantMessage:  "Claim data is growing to 10Gi",
		},
		{
			name: "growing, waiting for a pod to mount it",
			pvc: claimWith(corev1.PersistentVolumeClaimStatus{
				Phase: corev1.ClaimBound, Capacity: capacity("5Gi"),
				Conditions: []corev1.PersistentVolumeClaimCondition{
					{Type: corev1.PersistentVolumeClaimResizing, Status: corev1.ConditionFalse},
					{Type: corev1.PersistentVolumeClaimFileSystemResizePending, Status: corev1.ConditionTrue},
				},
			}),
			wantPhase:    corev1.ClaimBound,
			wantCapacity: "5Gi",
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionTrue,
			wantResizeBy: string(corev1.PersistentVolumeClaimFileSystemResizePending),
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonResizing,
		},
		{
			name:         "lost",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimLost, Capacity: capacity("10Gi")}),
			wantPhase:    corev1.ClaimLost,
			wantCapacity: "10Gi",
			wantBound:    metav1.ConditionFalse,
			wantBoundWhy: reasonLost,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonPending,
		},
		{
			name:         "bound with no capacity reported",
			pvc:          claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}),
			wantPhase:    corev1.ClaimBound,
			wantBound:    metav1.ConditionTrue,
			wantBoundWhy: reasonBound,
			wantResizing: metav1.ConditionFalse,
			wantResizeBy: reasonAtSize,
			wantReady:    metav1.ConditionFalse,
			wantReason:   reasonAwaitingSize,
			wantMessage:  "Claim data reports no capacity yet",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			dv := newDemoVolume()
			dv.Generation = 7

			pvc := applytest.Applied(t, desiredClaim(dv, holderRef, ""), tt.pvc)
			fromCache := dv.DeepCopy()
			computeStatus(dv, pvc, tt.applyErr)
			computeStatus(fromCache, cachedtest.AsCached(t, Owned, pvc), tt.applyErr)
			cachedtest.ExpectSameStatus(t, fromCache, dv)

			st := dv.Status
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(7))
			g.Expect(st.Name).To(Equal("Team A data"), "spec.name is copied to the status")
			g.Expect(st.ClaimName).To(Equal(tt.pvc.Name))
			g.Expect(st.Phase).To(Equal(tt.wantPhase))
			g.Expect(st.Capacity).To(Equal(tt.wantCapacity))
			// Restored says what a claim was made from, once there is one.
			g.Expect(meta.FindStatusCondition(st.Conditions, seedv1alpha1.DemoVolumeRestored) != nil).To(Equal(tt.pvc.Name != ""))
			for _, c := range st.Conditions {
				g.Expect(c.ObservedGeneration).To(BeEquivalentTo(7), c.Type)
			}

			bound := meta.FindStatusCondition(st.Conditions, seedv1alpha1.DemoVolumeBound)
			g.Expect(bound.Status).To(Equal(tt.wantBound))
			g.Expect(bound.Reason).To(Equal(tt.wantBoundWhy))
			resizing := meta.FindStatusCondition(st.Conditions, seedv1alpha1.DemoVolumeResizing)
			g.Expect(resizing.Status).To(Equal(tt.wantResizing))
			g.Expect(resizing.Reason).To(Equal(tt.wantResizeBy))
			ready := meta.FindStatusCondition(st.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready.Status).To(Equal(tt.wantReady))
			g.Expect(ready.Reason).To(Equal(tt.wantReason))
			g.Expect(ready.Message).To(ContainSubstring(tt.wantMessage))
		})
	}
}

func TestComputeStatusClearsAnOldCapacity(t *testing.T) {
	g := NewWithT(t)
	dv := newDemoVolume()
	computeStatus(dv, claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("10Gi")}), nil)
	g.Expect(dv.Status.Capacity).To(Equal("10Gi"))

	// A claim re-created after being deleted starts over with no volume.
	computeStatus(dv, claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}), nil)
	g.Expect(dv.Status.Capacity).To(BeEmpty())
	g.Expect(dv.Status.Phase).To(Equal(corev1.ClaimPending))
	g.Expect(meta.IsStatusConditionFalse(dv.Status.Conditions, seedv1alpha1.DemoVolumeBound)).To(BeTrue())
	g.Expect(meta.IsStatusConditionFalse(dv.Status.Conditions, seedv1alpha1.ConditionReady)).To(BeTrue())
}

func TestComputeStatusReportsTheVolume(t *testing.T) {
	g := NewWithT(t)
	dv := newDemoVolume()
	computeStatus(dv, claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("10Gi")}), nil)
	bound := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeBound)
	g.Expect(bound.Message).To(Equal("Bound to volume pv-0001"))
}

func TestComputeStatusWaitsForABackup(t *testing.T) {
	g := NewWithT(t)
	dv := newDemoVolume()
	waiting := &refusal{backup.ReasonNotReady, "Backup b is not ready to restore from yet"}
	computeStatus(dv, &corev1.PersistentVolumeClaim{}, fmt.Errorf("restoring: %w", waiting))
	for conditionType, reason := range map[string]string{
		seedv1alpha1.ConditionReady: backup.ReasonNotReady, seedv1alpha1.DemoVolumeRestored: backup.ReasonNotReady, seedv1alpha1.DemoVolumeBound: reasonPending,
	} {
		c := meta.FindStatusCondition(dv.Status.Conditions, conditionType)
		g.Expect(c).To(HaveField("Status", metav1.ConditionFalse), conditionType)
		g.Expect(c.Reason).To(Equal(reason), conditionType)
		g.Expect(c.Message).To(ContainSubstring("Backup b is not ready"), conditionType)
	}
}

func TestComputeStatusNamesTheBackupRestored(t *testing.T) {
	g := NewWithT(t)
	dv := newDemoVolume()
	pvc := applytest.Applied(t, desiredClaim(dv, holderRef, "data-request-1"), claimWith(corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: capacity("10Gi")}))
	fromCache := dv.DeepCopy()
	computeStatus(dv, pvc, nil)
	computeStatus(fromCache, cachedtest.AsCached(t, Owned, pvc), nil)
	cachedtest.ExpectSameStatus(t, fromCache, dv)
	g.Expect(dv.Status.RestoredFrom).To(Equal("data-request-1"))
	restored := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeRestored)
	g.Expect(restored).To(HaveField("Status", metav1.ConditionTrue))
	g.Expect(restored.Reason).To(Equal(reasonFromBackup))
}

func TestComputeBackupStatus(t *testing.T) {
	failed := snapshots("p")
	failed[0].Status = &snapshotv1.VolumeSnapshotStatus{Error: &snapshotv1.VolumeSnapshotError{Message: ptr.To("disk full")}}
	for _, tt := range []struct {
		name       string
		spec       *seedv1alpha1.DemoVolumeBackup
		b          backups
		want       metav1.ConditionStatus
		wantReason string
	}{
		{name: "no backup asked", b: backups{list: snapshots("r")}},
		{name: "refused", spec: &seedv1alpha1.DemoVolumeBackup{}, b: backups{refusal: &refusal{reasonNoSnapshotClass, "no class"}},
			want: metav1.ConditionFalse, wantReason: reasonNoSnapshotClass},
		{name: "none yet", spec: &seedv1alpha1.DemoVolumeBackup{}, want: metav1.ConditionFalse, wantReason: reasonNoBackupYet},
		{name: "the newest failed", spec: &seedv1alpha1.DemoVolumeBackup{}, b: backups{list: append(failed, snapshots("r")...)},
			want: metav1.ConditionFalse, wantReason: reasonBackupFailed},
		{name: "the newest in progress", spec: &seedv1alpha1.DemoVolumeBackup{}, b: backups{list: snapshots("p", "r")},
			want: metav1.ConditionFalse, wantReason: reasonBackupInProgress},
		{name: "the newest ready", spec: &seedv1alpha1.DemoVolumeBackup{}, b: backups{list: snapshots("r", "p")},
			want: metav1.ConditionTrue, wantReason: reasonBackupReady},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			dv := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Backup = tt.spec })
			computeBackupStatus(dv, &tt.b)
			g.Expect(dv.Status.Backups).To(HaveLen(len(tt.b.list)))
			c := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeBackedUp)
			if tt.spec == nil {
				g.Expect(c).To(BeNil())
				return
			}
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(tt.want))
			g.Expect(c.Reason).To(Equal(tt.wantReason))
		})
	}
}

func TestComputeBackupStatusRecordsWhatWasTaken(t *testing.T) {
	g := NewWithT(t)
	dv := newDemoVolume()
	at := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	computeBackupStatus(dv, &backups{scheduled: at, request: "now"})
	g.Expect(dv.Status.LastScheduledBackupTime).To(HaveValue(HaveField("Time", at)))
	g.Expect(dv.Status.LastBackupRequest).To(Equal("now"))
	// Nothing taken: what was recorded stays.
	computeBackupStatus(dv, &backups{})
	g.Expect(dv.Status.LastScheduledBackupTime).To(HaveValue(HaveField("Time", at)))
	g.Expect(dv.Status.LastBackupRequest).To(Equal("now"))
}
