//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// DemoVolumes on the local cluster's CSI driver, whose volumes have a real
// size, grow while in use and report their usage through the kubelet.
var _ = Describe("The storage lifecycle on the real node", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = realNamespace(ctx, "storage")
	})

	It("grows a DemoVolume while a pod writes to it, with its data, and the kubelet reports its usage", func(ctx SpecContext) {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "grow", Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: "Grow", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To(cluster.CSIStorageClass),
			},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		expectReady(ctx, dv)

		By("a pod that writes 64 MiB and then tells its file system's size and its data, each second")
		pod := claimPod(namespace, "watcher", dv.Name, "echo kept > /data/file && dd if=/dev/zero of=/data/fill bs=1M count=64 2>/dev/null && "+
			"while true; do echo $(df -k /data | tail -n 1 | awk '{print $2}') $(cat /data/file); sleep 1; done")
		pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		lastLine := func(g Gomega) string {
			lines := strings.Fields(strings.TrimSpace(lastOf(podLogsOrEmpty(ctx, namespace, pod.Name))))
			g.Expect(lines).To(HaveLen(2), "the pod's last line: size and data")
			return strings.Join(lines, " ")
		}
		Eventually(ctx, lastLine).WithTimeout(90*time.Second).Should(Equal("1048576 kept"), "1 GiB, in KiB, and the file")

		By("the kubelet's summary API and metrics, with the volume's usage")
		claim := &corev1.PersistentVolumeClaim{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), claim)).To(Succeed())
		node := realNodeName(ctx)
		Eventually(ctx, func(g Gomega) {
			used, capacity := summaryVolumeStats(ctx, g, node, namespace, claim.Name)
			g.Expect(used).To(BeNumerically(">=", 64<<20))
			g.Expect(capacity).To(BeNumerically("==", 1<<30))
		}).WithTimeout(2 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		Eventually(ctx, func(g Gomega) {
			series := fmt.Sprintf(`kubelet_volume_stats_used_bytes{namespace=%q,persistentvolumeclaim=%q}`, namespace, claim.Name)
			g.Expect(nodeProxy(ctx, g, node, "metrics")).To(ContainSubstring(series))
		}).WithTimeout(2 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())

		By("raising spec.size: the running pod sees 2 GiB, its data kept")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
		dv.Spec.Size = 2
		Expect(k8sClient.Update(ctx, dv)).To(Succeed())
		start := time.Now()
		Eventually(ctx, lastLine).WithTimeout(2*time.Minute).Should(Equal("2097152 kept"), "2 GiB, in KiB, and the file")
		GinkgoWriter.Printf("the pod saw its volume grow %s after spec.size was raised\n", time.Since(start).Round(100*time.Millisecond))
		expectReady(ctx, dv)
		Expect(dv.Status.Capacity).To(Equal("2Gi"))
	})

	It("backs a DemoVolume up and restores the backup into another with kubectl seed, with the data of that time", func(ctx SpecContext) {
		backedUpVolume(ctx, namespace, "source", seedv1alpha1.DemoVolumeBackup{Keep: 3})
		Expect(runOnClaim(ctx, namespace, "before", "source", "echo first > /data/first && cat /data/first")).To(Equal("first\n"))
		out := kubectlSeed(ctx, "backup", "dv/source", "--wait", "-n", namespace)
		requested := regexp.MustCompile(`^demovolume/source: backup (source-request-[0-9a-f]{10}) requested\n`).FindStringSubmatch(out)
		Expect(requested).To(HaveLen(2), out)
		backup := requested[1]
		Expect(out).To(HaveSuffix("demovolume/source: backup " + backup + " is ready to restore from\n"))
		Expect(runOnClaim(ctx, namespace, "after", "source", "echo second > /data/second && ls /data")).To(Equal("first\nsecond\n"))

		kubectlSeed(ctx, "restore", "dv/source", "--backup", backup, "--to", "restored", "--wait", "-n", namespace)
		restored := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: "restored", Namespace: namespace}}
		expectReady(ctx, restored)
		Expect(restored.Status.RestoredFrom).To(Equal(backup))
		Expect(restored.Spec.StorageClassName).To(HaveValue(Equal(cluster.CSIStorageClass)), "the source's class")
		Expect(runOnClaim(ctx, namespace, "reader", "restored", "ls /data && cat /data/first")).To(Equal("first\nfirst\n"),
			"the first file, not the second, which was written after the backup")
		Expect(kubectlSeed(ctx, "status", "-n", namespace)).To(MatchRegexp(
			`(?m)^DemoVolume\s+restored\s+True\s+Bound\s+\S+\s+claim restored Bound, 1Gi, restored from ` + backup + `$`))

		By("a support bundle of the namespace, read back")
		file := filepath.Join(GinkgoT().TempDir(), "report.tar.gz")
		kubectlSeed(ctx, "report", "-n", namespace, "-o", file)
		files, err := testenv.ReadTarGz(file)
		Expect(err).NotTo(HaveOccurred())
		listed := regexp.MustCompile(`(?m)^  (\S+)$`).FindAllStringSubmatch(files["README.txt"], -1)
		Expect(listed).To(HaveLen(len(files)-1), "the README lists every other file")
		for _, l := range listed {
			Expect(files).To(HaveKey(l[1]))
		}
		resources := "resources/" + namespace + "/"
		Expect(files).To(SatisfyAll(
			HaveKey(resources+"demovolumes/source.yaml"), HaveKey(resources+"demovolumes/restored.yaml"),
			HaveKey(resources+"owned/persistentvolumeclaim/restored.yaml"), HaveKey(resources+"owned/volumesnapshot/"+backup+".yaml"),
			HaveKey(resources+"events.yaml"), HaveKey("operator/seed-operator-system/lease.yaml"),
		))
		for name, content := range files {
			Expect(content).NotTo(Or(ContainSubstring("kind: Secret"), MatchRegexp(`eyJ[A-Za-z0-9_-]{8,}\.`)), name)
		}
	})

	It("keeps the newest scheduled backups, as many as keep says", func(ctx SpecContext) {
		dv := backedUpVolume(ctx, namespace, "scheduled", seedv1alpha1.DemoVolumeBackup{
			Schedule: "@every 5s", Keep: 2, VolumeSnapshotClassName: ptr.To(cluster.CSIStorageClass),
		})
		taken := map[string]bool{}
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
			for _, b := range dv.Status.Backups {
				taken[b.Name] = true
			}
			g.Expect(len(taken)).To(BeNumerically(">=", 4), "backups taken so far")
			g.Expect(backupsOf(ctx, g, dv)).To(HaveLen(2), "backups kept")
		}).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("backups seen: %d, kept: 2\n", len(taken))
	})

	It("makes a deleted claim again from the newest backup with restoreOnLoss, with its data", func(ctx SpecContext) {
		dv := backedUpVolume(ctx, namespace, "precious", seedv1alpha1.DemoVolumeBackup{Keep: 1, RestoreOnLoss: true})
		Expect(runOnClaim(ctx, namespace, "writer", "precious", "echo kept > /data/file && cat /data/file")).To(Equal("kept\n"))
		backup := requestBackup(ctx, dv, "before-the-loss")

		deleteAndExpectRestored(ctx, dv, backup)
		expectReady(ctx, dv)
		Expect(runOnClaim(ctx, namespace, "reader", "precious", "cat /data/file")).To(Equal("kept\n"))

		By("deleting the DemoVolume, whose policy is Delete: the garbage collector takes the claim and the backup")
		Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: backup}, &snapshotv1.VolumeSnapshot{})).
				To(MatchError(ContainSubstring("not found")))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), &corev1.PersistentVolumeClaim{})).
				To(MatchError(ContainSubstring("not found")))
		}).WithTimeout(time.Minute).Should(Succeed())
	})

	It("grows a DemoVolume by itself once for each fill, measured on the grown volume", long, func(ctx SpecContext) {
		// maxSize leaves room for more growths than the fills call for:
		// one growth too many shows in the claim's size.
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "growing", Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{
				Name: "Growing", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To(cluster.CSIStorageClass),
				AutoGrow: &seedv1alpha1.DemoVolumeAutoGrow{ThresholdPercent: 60, MaxSize: 4},
			},
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		expectReady(ctx, dv)

		By("a pod filling 1 GiB to 78%, waiting on 2 GiB (39%) while the kubelet measures it again, then filling it to 63%")
		// The local cluster's kubelet measures volumes each 10 s: the pod
		// waits out four measurements of the grown volume.
		pod := claimPod(namespace, "filler", dv.Name, "dd if=/dev/zero of=/data/a bs=1M count=800 2>/dev/null && echo filled && "+
			"until [ $(df -k /data | tail -n 1 | awk '{print $2}') -ge 2097152 ]; do sleep 0.2; done && echo grown && sleep 45 && "+
			"dd if=/dev/zero of=/data/b bs=1M count=500 2>/dev/null && echo filled again && "+
			"until [ $(df -k /data | tail -n 1 | awk '{print $2}') -ge 3145728 ]; do sleep 0.2; done && echo grown again && sleep 3600")
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		logged := func(line string) func(Gomega) {
			return func(g Gomega) { g.Expect(podLogsOrEmpty(ctx, namespace, pod.Name)).To(ContainSubstring(line + "\n")) }
		}
		request := func() string {
			claim := &corev1.PersistentVolumeClaim{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), claim)).To(Succeed())
			return ptr.To(claim.Spec.Resources.Requests[corev1.ResourceStorage]).String()
		}
		Eventually(ctx, logged("filled")).WithTimeout(90 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		crossed := time.Now()
		Eventually(ctx, logged("grown")).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("the pod saw 2 GiB %s after it filled 1 GiB past the threshold\n", time.Since(crossed).Round(100*time.Millisecond))
		Consistently(ctx, request).WithTimeout(35*time.Second).WithPolling(time.Second).
			Should(Equal("2Gi"), "one growth for one fill, however often the kubelet's earlier measurement is read again")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
		Expect(dv.Status.LastGrowth).To(HaveValue(And(HaveField("From", "1Gi"), HaveField("To", "2Gi"))))
		Expect(dv.Status.Usage).To(HaveValue(HaveField("Percent", BeNumerically("<", 60))), "measured on the grown volume")
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, "Grown")).To(BeEquivalentTo(1))

		By("a second fill: a second growth, and only one")
		Eventually(ctx, logged("grown again")).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		Consistently(ctx, request).WithTimeout(25 * time.Second).WithPolling(time.Second).Should(Equal("3Gi"))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
		Expect(dv.Status.LastGrowth).To(HaveValue(And(HaveField("From", "2Gi"), HaveField("To", "3Gi"))))
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, "Grown")).To(BeEquivalentTo(2))
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, apply.ReasonRepaired)).To(BeZero(), "the operator's own growths are no repairs")
		atMax := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeAtMaxSize)
		Expect(atMax).To(HaveValue(HaveField("Status", Not(Equal(metav1.ConditionTrue)))))
	})

	It("keeps the backups of a DemoVolume with Retain when it is deleted, and restores from them once it is made again", func(ctx SpecContext) {
		keep := func() *seedv1alpha1.DemoVolume {
			dv := &seedv1alpha1.DemoVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "keep", Namespace: namespace},
				Spec: seedv1alpha1.DemoVolumeSpec{
					Name: "Keep", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimRetain, StorageClassName: ptr.To(cluster.CSIStorageClass),
					Backup: &seedv1alpha1.DemoVolumeBackup{Keep: 2, RestoreOnLoss: true},
				},
			}
			Expect(k8sClient.Create(ctx, dv)).To(Succeed())
			expectReady(ctx, dv)
			return dv
		}
		first := keep()
		Expect(runOnClaim(ctx, namespace, "writer", "keep", "echo kept > /data/file && cat /data/file")).To(Equal("kept\n"))
		backup := requestBackup(ctx, first, "before-the-delete")

		By("deleting the DemoVolume: the claim and the backup stay, with the backup's content")
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(first), first) }).
			Should(MatchError(ContainSubstring("not found")))
		retained := &snapshotv1.VolumeSnapshotList{}
		kept := func(g Gomega) {
			g.Expect(k8sClient.List(ctx, retained, client.InNamespace(namespace), client.MatchingLabels{"seed.example.com/retained": "true"})).To(Succeed())
			g.Expect(retained.Items).To(ConsistOf(And(
				HaveField("Name", backup), HaveField("OwnerReferences", BeEmpty()), HaveField("DeletionTimestamp", BeNil()),
				HaveField("Status.ReadyToUse", HaveValue(BeTrue())),
			)))
		}
		Eventually(ctx, kept).Should(Succeed())
		Consistently(ctx, kept).WithTimeout(10*time.Second).Should(Succeed(), "the garbage collector leaves the backup")

		By("a DemoVolume of the same name: the backup is its again")
		second := keep()
		Eventually(ctx, func(g Gomega) {
			g.Expect(backupsOf(ctx, g, second)).To(ConsistOf(backup))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(second), second)).To(Succeed())
			g.Expect(second.Status.Backups).To(ConsistOf(HaveField("Name", backup)))
		}).Should(Succeed())

		By("the claim deleted: made again from the backup, with the data")
		deleteAndExpectRestored(ctx, second, backup)
		expectReady(ctx, second)
		Expect(runOnClaim(ctx, namespace, "reader", "keep", "cat /data/file")).To(Equal("kept\n"))
	})
})

// backedUpVolume creates a DemoVolume of 1 GiB on the CSI driver, with
// backups as given, and waits until it is Ready.
func backedUpVolume(ctx context.Context, namespace, name string, backup seedv1alpha1.DemoVolumeBackup) *seedv1alpha1.DemoVolume {
	dv := &seedv1alpha1.DemoVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: seedv1alpha1.DemoVolumeSpec{
			Name: name, Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete, StorageClassName: ptr.To(cluster.CSIStorageClass),
			Backup: &backup,
		},
	}
	Expect(k8sClient.Create(ctx, dv)).To(Succeed())
	expectReady(ctx, dv)
	return dv
}

// requestBackup asks for a backup of dv on demand, waits until it is ready
// and returns its name.
func requestBackup(ctx context.Context, dv *seedv1alpha1.DemoVolume, request string) string {
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
		metav1.SetMetaDataAnnotation(&dv.ObjectMeta, seedv1alpha1.BackupAnnotation, request)
		g.Expect(k8sClient.Update(ctx, dv)).To(Succeed())
	}).Should(Succeed())
	var name string
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), dv)).To(Succeed())
		g.Expect(dv.Status.LastBackupRequest).To(Equal(request))
		backedUp := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeBackedUp)
		g.Expect(backedUp).NotTo(BeNil())
		g.Expect(backedUp.Status).To(Equal(metav1.ConditionTrue), backedUp.Message)
		name = dv.Status.Backups[0].Name
	}).WithTimeout(time.Minute).Should(Succeed())
	return name
}

// deleteAndExpectRestored deletes dv's claim, as a loss would, and waits
// for the claim made in its place from backup (restoreOnLoss).
func deleteAndExpectRestored(ctx context.Context, dv *seedv1alpha1.DemoVolume, backup string) {
	lost := &corev1.PersistentVolumeClaim{}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), lost)).To(Succeed())
	Expect(k8sClient.Delete(ctx, lost)).To(Succeed())
	Eventually(ctx, func(g Gomega) {
		pvc := &corev1.PersistentVolumeClaim{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), pvc)).To(Succeed())
		g.Expect(pvc.UID).NotTo(Equal(lost.UID))
		g.Expect(pvc.Spec.DataSourceRef).To(HaveValue(HaveField("Name", backup)))
	}).WithTimeout(time.Minute).Should(Succeed())
}

// backupsOf are the names of dv's backups, as the API server has them.
func backupsOf(ctx context.Context, g Gomega, dv *seedv1alpha1.DemoVolume) []string {
	list := &snapshotv1.VolumeSnapshotList{}
	g.Expect(k8sClient.List(ctx, list, client.InNamespace(dv.Namespace))).To(Succeed())
	var names []string
	for _, b := range list.Items {
		if metav1.IsControlledBy(&b, dv) {
			names = append(names, b.Name)
		}
	}
	return names
}

// podLogsOrEmpty is a pod's log, or nothing while it has not started.
func podLogsOrEmpty(ctx context.Context, namespace, name string) string {
	data, err := clientset.CoreV1().Pods(namespace).GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		return ""
	}
	return string(data)
}

// lastOf is the last line of a log.
func lastOf(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	return lines[len(lines)-1]
}

// nodeProxy gets a path of a node's kubelet through the API server's node
// proxy.
func nodeProxy(ctx context.Context, g Gomega, node, path string) string {
	data, err := clientset.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", node, "proxy", path).DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	return string(data)
}

// summaryVolumeStats is a claim's used bytes and capacity as the kubelet's
// summary API reports them.
func summaryVolumeStats(ctx context.Context, g Gomega, node, namespace, claim string) (used, capacity uint64) {
	var summary struct {
		Pods []struct {
			Volume []struct {
				UsedBytes     *uint64 `json:"usedBytes"`
				CapacityBytes *uint64 `json:"capacityBytes"`
				PVCRef        *struct {
					Name, Namespace string
				} `json:"pvcRef"`
			} `json:"volume"`
		} `json:"pods"`
	}
	g.Expect(json.Unmarshal([]byte(nodeProxy(ctx, g, node, "stats/summary")), &summary)).To(Succeed())
	for _, pod := range summary.Pods {
		for _, v := range pod.Volume {
			if v.PVCRef != nil && v.PVCRef.Namespace == namespace && v.PVCRef.Name == claim && v.UsedBytes != nil && v.CapacityBytes != nil {
				return *v.UsedBytes, *v.CapacityBytes
			}
		}
	}
	g.Expect(claim).To(BeEmpty(), "the summary API reports no volume of claim "+claim)
	return 0, 0
}
