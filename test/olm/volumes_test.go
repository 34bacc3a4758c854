//go:build olm

package olm

import (
	"context"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// dataVolumes are DemoVolumes on the real node's CSI driver, with what the
// operator does to them by itself: one with a ready backup, and one that
// autoGrow grew while a pod filled it. An upgrade must lose no backup, and
// grow no volume that the measurements do not call for.
type dataVolumes struct {
	backedUp, filled *seedv1alpha1.DemoVolume
	// backups are the backed-up volume's backups, by name.
	backups map[string]types.UID
	// request, lastGrowth and grown are the filled volume's claim request,
	// last growth and Grown events once autoGrow settled.
	request    string
	lastGrowth *seedv1alpha1.DemoVolumeGrowth
	grown      int32
}

// createDataVolumes makes the data volumes in namespace, deleted after the
// spec, and waits until the operator has backed up the one and grown the
// other.
func createDataVolumes(ctx context.Context, namespace string) *dataVolumes {
	newVolume := func(name string, mutate func(*seedv1alpha1.DemoVolumeSpec)) *seedv1alpha1.DemoVolume {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: name, Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To(cluster.CSIStorageClass),
			},
		}
		mutate(&dv.Spec)
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		DeferCleanup(deleteAndWait, dv)
		return dv
	}
	v := &dataVolumes{
		backedUp: newVolume("backed-up", func(s *seedv1alpha1.DemoVolumeSpec) { s.Backup = &seedv1alpha1.DemoVolumeBackup{Keep: 2} }),
		filled: newVolume("filled", func(s *seedv1alpha1.DemoVolumeSpec) {
			s.AutoGrow = &seedv1alpha1.DemoVolumeAutoGrow{ThresholdPercent: 60, MaxSize: 4}
		}),
	}

	By("a backup of one volume, on request")
	testenv.Update(ctx, k8sClient, v.backedUp, func(dv *seedv1alpha1.DemoVolume) {
		metav1.SetMetaDataAnnotation(&dv.ObjectMeta, seedv1alpha1.BackupAnnotation, "before-the-upgrade")
	})
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.backedUp), v.backedUp)).To(Succeed())
		backedUp := meta.FindStatusCondition(v.backedUp.Status.Conditions, seedv1alpha1.DemoVolumeBackedUp)
		g.Expect(backedUp).NotTo(BeNil())
		g.Expect(backedUp.Status).To(Equal(metav1.ConditionTrue), backedUp.Message)
	}).Should(Succeed())
	v.backups = backupUIDs(ctx, Default, v.backedUp)
	Expect(v.backups).To(HaveLen(1))
	AddReportEntry(previousVersion+": a DemoVolume's finalizers", v.backedUp.Finalizers)

	By("a pod filling the other to 78% of 1 GiB, which autoGrow grows")
	mountClaim(ctx, namespace, v.filled.Name, "dd if=/dev/zero of=/data/fill bs=1M count=800 2>/dev/null && sleep 3600")
	claim := &corev1.PersistentVolumeClaim{}
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), v.filled)).To(Succeed())
		g.Expect(v.filled.Status.LastGrowth).NotTo(BeNil(), "no growth yet")
	}).Should(Succeed())
	// Settled: no growth for longer than the local kubelet takes to
	// measure the grown volume twice.
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), claim)).To(Succeed())
		g.Expect(claim.Status.Capacity.Storage().Cmp(*claim.Spec.Resources.Requests.Storage())).To(BeNumerically(">=", 0), "growing")
		request := claim.Spec.Resources.Requests.Storage().String()
		g.Consistently(ctx, func(g Gomega) string {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), claim)).To(Succeed())
			return claim.Spec.Resources.Requests.Storage().String()
		}).WithTimeout(25 * time.Second).WithPolling(time.Second).Should(Equal(request))
	}).WithTimeout(3 * time.Minute).Should(Succeed())
	v.request = claim.Spec.Resources.Requests.Storage().String()
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), v.filled)).To(Succeed())
	v.lastGrowth = v.filled.Status.LastGrowth
	v.grown = testenv.EventCount(ctx, Default, k8sClient, v.filled, "Grown")
	AddReportEntry(previousVersion+": the filled volume grew to", v.request)
	return v
}

// expectKept checks the data volumes after an upgrade that completed at
// upgraded: the same backups, now listed and controlled by the new
// version, and no growth since, while the new version measures the volume.
func (v *dataVolumes) expectKept(ctx context.Context, upgraded time.Time) {
	By("keeping every backup")
	Eventually(ctx, func(g Gomega) {
		g.Expect(backupUIDs(ctx, g, v.backedUp)).To(Equal(v.backups))
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.backedUp), v.backedUp)).To(Succeed())
		g.Expect(v.backedUp.Status.Backups).To(ConsistOf(HaveField("ReadyToUse", true)))
	}).Should(Succeed())

	By("growing nothing the measurements do not call for")
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), v.filled)).To(Succeed())
		g.Expect(v.filled.Status.Usage).NotTo(BeNil())
		g.Expect(v.filled.Status.Usage.Time.Time).To(BeTemporally(">", upgraded), "measured by "+version)
		g.Expect(v.filled.Status.Usage.Percent).To(BeNumerically("<", 60))
	}).Should(Succeed())
	// Watched from the upgrade on, the checks above included, for two of
	// the new version's measurements.
	claim := &corev1.PersistentVolumeClaim{}
	Consistently(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), claim)).To(Succeed())
		g.Expect(claim.Spec.Resources.Requests.Storage().String()).To(Equal(v.request))
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(v.filled), v.filled)).To(Succeed())
		g.Expect(v.filled.Status.LastGrowth).To(HaveValue(And(
			HaveField("To", v.lastGrowth.To), HaveField("Time.Time", BeTemporally("==", v.lastGrowth.Time.Time)))))
	}).WithTimeout(max(time.Until(upgraded.Add(30*time.Second)), 2*time.Second)).WithPolling(2 * time.Second).Should(Succeed())
	Expect(testenv.EventCount(ctx, Default, k8sClient, v.filled, "Grown")).To(Equal(v.grown))

	By("no finalizer on either volume, their claims and backups held by the namespace")
	Eventually(ctx, func(g Gomega) {
		for _, dv := range []*seedv1alpha1.DemoVolume{v.backedUp, v.filled} {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
			g.Expect(dv.Finalizers).To(BeEmpty(), "%s: nothing holds its namespace's deletion", dv.Name)
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), claim)).To(Succeed())
			g.Expect(claim.OwnerReferences).To(ContainElement(And(HaveField("Kind", "Namespace"), HaveField("Name", dv.Namespace))), "claim %s", claim.Name)
		}
		list := &snapshotv1.VolumeSnapshotList{}
		g.Expect(k8sClient.List(ctx, list, client.InNamespace(v.backedUp.Namespace))).To(Succeed())
		for _, b := range list.Items {
			if metav1.IsControlledBy(&b, v.backedUp) {
				g.Expect(b.OwnerReferences).To(ContainElement(HaveField("Kind", "Namespace")), "backup %s", b.Name)
			}
		}
	}).Should(Succeed())
}

// backupUIDs are the UIDs of dv's backups, by name.
func backupUIDs(ctx context.Context, g Gomega, dv *seedv1alpha1.DemoVolume) map[string]types.UID {
	list := &snapshotv1.VolumeSnapshotList{}
	g.Expect(k8sClient.List(ctx, list, client.InNamespace(dv.Namespace))).To(Succeed())
	uids := map[string]types.UID{}
	for _, b := range list.Items {
		if metav1.IsControlledBy(&b, dv) {
			uids[b.Name] = b.UID
		}
	}
	return uids
}
