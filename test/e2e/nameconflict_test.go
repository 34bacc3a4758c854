//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// A user's objects that have the name a custom resource would give its own
// keep doing what they did, on the real node, through the resource's life.
var _ = Describe("On the real node, with a name already taken", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = realNamespace(ctx, "taken")
	})

	It("keeps a user's Service serving their pods while a WebServer of the clashing name exists and after", func(ctx SpecContext) {
		backend := readyWebServer(ctx, namespace, "backend")
		theirs := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "mine-service", Namespace: namespace},
			Spec: corev1.ServiceSpec{
				Selector: kube.SelectorLabels("webserver", backend.Name),
				Ports:    []corev1.ServicePort{{Port: 5432, TargetPort: intstr.FromInt32(backend.Spec.ContainerPort)}},
			},
		}
		Expect(k8sClient.Create(ctx, theirs, client.FieldOwner("kubectl-create"))).To(Succeed())
		url := fmt.Sprintf("http://%s:5432/", theirs.Spec.ClusterIP)
		Eventually(ctx, func(g Gomega) { g.Expect(hostGet(url)).To(ContainSubstring(pageV1)) }).Should(Succeed())
		poller := startPolling(url)
		DeferCleanup(poller.stop)

		ws := &seedv1alpha1.WebServer{
			ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: namespace},
			Spec:       seedv1alpha1.WebServerSpec{Image: images["nginx-v2"]},
		}
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)
		expectSame(ctx, theirs)

		Expect(k8sClient.Delete(ctx, ws)).To(Succeed())
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), ws) }).Should(MatchError(ContainSubstring("not found")))
		expectSame(ctx, theirs)
		poller.stop()

		requests, failures, pages := poller.result()
		AddReportEntry("name conflict, Service", fmt.Sprintf("%d requests, %d failed", requests, len(failures)))
		Expect(failures).To(BeEmpty(), "requests to the user's Service failed")
		Expect(pages).To(HaveLen(1), "every answer is the user's page")
		Expect(pages).To(HaveKey(ContainSubstring(pageV1)))
	})

	It("keeps a user's claim and its data through a DemoVolume of its name created and deleted with reclaimPolicy Delete", func(ctx SpecContext) {
		theirs := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "userdata", Namespace: namespace, Labels: map[string]string{"team": "payments"}},
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: ptr.To("local-path"),
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				},
			},
		}
		Expect(k8sClient.Create(ctx, theirs, client.FieldOwner("kubectl-create"))).To(Succeed())
		Expect(runOnClaim(ctx, namespace, "writer", theirs.Name, "echo mine > /data/file && cat /data/file")).To(Equal("mine\n"))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())

		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: theirs.Name, Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: "Data", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To("local-path"),
			},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, dv, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)
		Expect(dv.Status.Phase).To(BeEmpty(), "nothing read from the user's claim")
		expectSame(ctx, theirs)

		Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv) }).Should(MatchError(ContainSubstring("not found")))
		expectSame(ctx, theirs)
		Expect(runOnClaim(ctx, namespace, "reader", theirs.Name, "cat /data/file")).To(Equal("mine\n"))
	})

	It("keeps a user's VolumeSnapshots of a schedule's next backup names, and prunes only the DemoVolume's own backups", func(ctx SpecContext) {
		dv := backedUpVolume(ctx, namespace, "scheduled", seedv1alpha1.DemoVolumeBackup{
			Keep: 1, VolumeSnapshotClassName: ptr.To(cluster.CSIStorageClass),
		})
		// The slots of "@every 5s" count from the DemoVolume's creation, and
		// a scheduled backup is named by its slot. The user's snapshots take
		// the names of three slots to come, of the DemoVolume's claim, and
		// carry the labels of its backups, so that the operator's list of
		// backups, which pruning walks, holds them.
		var theirs []*snapshotv1.VolumeSnapshot
		var lastTaken time.Time
		for slot := dv.CreationTimestamp.Add(5 * time.Second); len(theirs) < 3; slot = slot.Add(5 * time.Second) {
			if slot.Before(time.Now().Add(10 * time.Second)) {
				continue
			}
			snapshot := &snapshotv1.VolumeSnapshot{
				ObjectMeta: metav1.ObjectMeta{
					Name: dv.Name + "-" + slot.UTC().Format("20060102-150405"), Namespace: namespace,
					Labels: kube.SelectorLabels("demovolume-backup", dv.Name),
				},
				Spec: snapshotv1.VolumeSnapshotSpec{
					Source:                  snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To(dv.Name)},
					VolumeSnapshotClassName: ptr.To(cluster.CSIStorageClass),
				},
			}
			Expect(k8sClient.Create(ctx, snapshot, client.FieldOwner("kubectl-create"))).To(Succeed())
			theirs, lastTaken = append(theirs, snapshot), slot
		}
		testenv.Update(ctx, k8sClient, dv, func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Backup.Schedule = "@every 5s" })

		By("taking its own backups past the names taken, and pruning them down to keep")
		taken := map[string]bool{}
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
			for _, b := range dv.Status.Backups {
				taken[b.Name] = true
			}
			last := dv.Status.LastScheduledBackupTime
			g.Expect(last).NotTo(BeNil())
			g.Expect(last.Time).To(BeTemporally(">", lastTaken), "a slot past the names taken")
			g.Expect(len(taken)).To(BeNumerically(">=", 3), "backups taken")
			g.Expect(len(backupsOf(ctx, g, dv))).To(BeNumerically("<=", 2), "kept: one, and the newest ready one while the newest is not")
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())

		By("leaving every one of the user's snapshots theirs, never written by the operator")
		for _, snapshot := range theirs {
			now := &snapshotv1.VolumeSnapshot{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(snapshot), now)).To(Succeed(), "%s is still there", snapshot.Name)
			Expect(now.UID).To(Equal(snapshot.UID))
			Expect(now.DeletionTimestamp).To(BeNil())
			Expect(now.OwnerReferences).To(BeEmpty())
			Expect(now.Labels).To(Equal(snapshot.Labels))
			Expect(now.ManagedFields).NotTo(ContainElement(HaveField("Manager", kube.FieldManager)))
			Expect(taken).NotTo(HaveKey(snapshot.Name), "listed as a backup")
		}
		By("saying each conflict once, naming the snapshot")
		events := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
		conflicts := 0
		for _, e := range events.Items {
			if e.Regarding.UID != dv.UID || e.Reason != seedv1alpha1.ReasonNameConflict {
				continue
			}
			conflicts++
			Expect(testenv.Occurrences(e)).To(BeEquivalentTo(1), e.Note)
			Expect(e.Note).To(Or(ContainSubstring(theirs[0].Name), ContainSubstring(theirs[1].Name), ContainSubstring(theirs[2].Name)))
		}
		GinkgoWriter.Printf("backups taken: %d; conflicts said: %d, of the user's %d names\n", len(taken), conflicts, len(theirs))
		// A slot may pass unseen on a busy machine: not every name is met.
		Expect(conflicts).To(BeNumerically(">=", 1), "conflicts said")
	})
})

// expectSame checks, for a while, that obj is as it was read: the same
// resource version, so not written at all.
func expectSame(ctx context.Context, obj client.Object) {
	Consistently(ctx, func(g Gomega) {
		now, _ := obj.DeepCopyObject().(client.Object)
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), now)).To(Succeed())
		g.Expect(now.GetResourceVersion()).To(Equal(obj.GetResourceVersion()), "%T %s was written", obj, obj.GetName())
		g.Expect(now.GetOwnerReferences()).To(BeEmpty())
	}).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
}
