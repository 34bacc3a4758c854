package plugin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// output is what a command printed, and how it ended.
type output struct {
	out, errOut string
	err         error
}

var _ = Describe("kubectl seed", func() {
	var namespace, class string
	// clock is the plugin's: a backup request's value, and so the name of
	// the backup it makes, is known to the spec.
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	requested := backup.RequestedName("data", clock.Format(time.RFC3339Nano))

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "plugin")
		// A driver of the spec's own, with a default snapshot class.
		class = "csi-" + rand.String(5)
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: class + ".example.com"}
		vsc := &snapshotv1.VolumeSnapshotClass{
			ObjectMeta: metav1.ObjectMeta{Name: class, Annotations: map[string]string{"snapshot.storage.kubernetes.io/is-default-class": "true"}},
			Driver:     sc.Provisioner, DeletionPolicy: snapshotv1.VolumeSnapshotContentDelete,
		}
		for _, obj := range []client.Object{sc, vsc} {
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, obj)).To(Succeed()) })
		}
	})

	key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: namespace, Name: name} }
	// run runs kubectl seed with args as the user of config, in the
	// namespace.
	run := func(ctx context.Context, config *rest.Config, args ...string) output {
		var out, errOut bytes.Buffer
		cmd := newCommand(&Session{
			IOStreams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			config:    config, Namespace: namespace, Poll: 100 * time.Millisecond, Now: func() time.Time { return clock },
		})
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(ctx)
		return output{out.String(), errOut.String(), err}
	}
	// start runs kubectl seed in the background, for a command that waits
	// on what the spec does next.
	start := func(ctx context.Context, config *rest.Config, args ...string) <-chan output {
		done := make(chan output, 1)
		go func() {
			defer GinkgoRecover()
			done <- run(ctx, config, args...)
		}()
		return done
	}
	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.DemoVolume)) *seedv1alpha1.DemoVolume {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: seedv1alpha1.DemoVolumeSpec{Name: name, Size: 1, StorageClassName: ptr.To(class),
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}},
		}
		for _, m := range mutate {
			m(dv)
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		return dv
	}
	backedUp := func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Backup = &seedv1alpha1.DemoVolumeBackup{} }
	bind := func(ctx SpecContext, name, size string) { testenv.BindClaim(ctx, k8sClient, key(name), size) }
	ready := func(ctx SpecContext, name, size string) { testenv.ReadySnapshot(ctx, k8sClient, key(name), size) }
	// listed waits until the DemoVolume lists the backup, ready or not.
	listed := func(ctx SpecContext, name, backupName string, readyToUse bool) {
		Eventually(ctx, func(g Gomega) []seedv1alpha1.DemoVolumeBackupStatus {
			dv := &seedv1alpha1.DemoVolume{}
			g.Expect(k8sClient.Get(ctx, key(name), dv)).To(Succeed())
			return dv.Status.Backups
		}).Should(ContainElement(And(HaveField("Name", backupName), HaveField("ReadyToUse", readyToUse))))
	}
	// backedUpData is "data", bound, with a ready backup of size taken
	// through kubectl seed, whose name it returns.
	backedUpData := func(ctx SpecContext, size string, mutate ...func(*seedv1alpha1.DemoVolume)) string {
		create(ctx, "data", append([]func(*seedv1alpha1.DemoVolume){backedUp}, mutate...)...)
		bind(ctx, "data", "1Gi")
		Expect(run(ctx, env.Config, "backup", "dv/data").err).To(Succeed())
		ready(ctx, requested, size)
		listed(ctx, "data", requested, true)
		return requested
	}
	demoVolumes := func(ctx SpecContext) []string {
		list := &seedv1alpha1.DemoVolumeList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		names := make([]string, 0, len(list.Items))
		for _, dv := range list.Items {
			names = append(names, dv.Name)
		}
		return names
	}

	It("takes a backup, and prints its name once it is ready", func(ctx SpecContext) {
		create(ctx, "data", backedUp)
		bind(ctx, "data", "1Gi")
		done := start(ctx, env.Config, "backup", "dv/data", "--wait")
		Consistently(done, "1s").ShouldNot(Receive(), "waits while the backup is not ready")
		ready(ctx, requested, "1Gi")

		var o output
		Eventually(ctx, done).Should(Receive(&o))
		Expect(o.err).NotTo(HaveOccurred())
		Expect(o.out).To(Equal("demovolume/data: backup " + requested + " requested\n" +
			"demovolume/data: backup " + requested + " is ready to restore from\n"))
		dv := &seedv1alpha1.DemoVolume{}
		Expect(k8sClient.Get(ctx, key("data"), dv)).To(Succeed())
		Expect(dv.Annotations).To(HaveKeyWithValue(seedv1alpha1.BackupAnnotation, clock.Format(time.RFC3339Nano)))
	})

	It("says why a backup is not ready when --wait times out", func(ctx SpecContext) {
		create(ctx, "data", backedUp)
		bind(ctx, "data", "1Gi")
		Expect(run(ctx, env.Config, "backup", "dv/data").err).NotTo(HaveOccurred())
		listed(ctx, "data", requested, false)
		o := run(ctx, env.Config, "backup", "dv/data", "--wait", "--timeout", "2s")
		Expect(o.err).To(MatchError(ContainSubstring("still waiting after 2s: backup " + requested + " is not ready to use yet")))
	})

	It("refuses a backup of a DemoVolume that takes none, and asks for nothing", func(ctx SpecContext) {
		create(ctx, "data")
		o := run(ctx, env.Config, "backup", "dv/data")
		Expect(o.err).To(MatchError("DemoVolume data takes no backups: set its spec.backup first (`backup: {}` for backups on request only)"))
		dv := &seedv1alpha1.DemoVolume{}
		Expect(k8sClient.Get(ctx, key("data"), dv)).To(Succeed())
		Expect(dv.Annotations).NotTo(HaveKey(seedv1alpha1.BackupAnnotation))

		Expect(run(ctx, env.Config, "backup", "ws/data").err).To(MatchError("ws/data is not a DemoVolume: give dv/NAME"))
		Expect(run(ctx, env.Config, "backup", "dv/missing").err).To(Satisfy(apierrors.IsNotFound))
	})

	It("restores a backup into a new DemoVolume like its source, and waits until it is Ready", func(ctx SpecContext) {
		name := backedUpData(ctx, "1Gi", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete })
		done := start(ctx, env.Config, "restore", "dv/data", "--backup", name, "--to", "copy", "--wait")
		bind(ctx, "copy", "1Gi")

		var o output
		Eventually(ctx, done).Should(Receive(&o))
		Expect(o.err).NotTo(HaveOccurred())
		Expect(o.out).To(Equal("demovolume/copy created from backup " + name + "\ndemovolume/copy is Ready, restored from " + name + "\n"))
		copied := &seedv1alpha1.DemoVolume{}
		Expect(k8sClient.Get(ctx, key("copy"), copied)).To(Succeed())
		Expect(copied.Spec).To(Equal(seedv1alpha1.DemoVolumeSpec{
			Name: "copy", Size: 1, StorageClassName: ptr.To(class), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod},
			ReclaimPolicy: seedv1alpha1.ReclaimDelete, RestoreFrom: &seedv1alpha1.DemoVolumeRestoreSource{BackupName: name},
		}), "the source's class, modes and policy; no backups or growth turned on unasked")
		claim := &corev1.PersistentVolumeClaim{}
		Expect(k8sClient.Get(ctx, key("copy"), claim)).To(Succeed())
		Expect(claim.Spec.DataSource).To(HaveValue(HaveField("Name", name)), "the operator made the claim from the backup")
	})

	It("restores a backup its source left behind under Retain, at the backup's size", func(ctx SpecContext) {
		name := backedUpData(ctx, "2Gi", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		Expect(k8sClient.Delete(ctx, &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}})).To(Succeed())
		Eventually(ctx, demoVolumes).Should(BeEmpty())

		o := run(ctx, env.Config, "restore", "dv/data", "--backup", name, "--to", "again")
		Expect(o.err).NotTo(HaveOccurred())
		again := &seedv1alpha1.DemoVolume{}
		Expect(k8sClient.Get(ctx, key("again"), again)).To(Succeed())
		Expect(again.Spec.Size).To(Equal(int32(2)))
		Expect(again.Spec.RestoreFrom).To(HaveValue(HaveField("BackupName", name)))
	})

	It("refuses what the operator would refuse, in its words, and makes nothing", func(ctx SpecContext) {
		name := backedUpData(ctx, "2Gi", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		Expect(k8sClient.Create(ctx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: namespace},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		})).To(Succeed())
		Expect(run(ctx, env.Config, "backup", "dv/data").err).To(Succeed(), "a second request of the same value makes no second backup")
		Expect(k8sClient.Create(ctx, &snapshotv1.VolumeSnapshot{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/instance": "gone"}},
			Spec:       snapshotv1.VolumeSnapshotSpec{Source: snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To("theirs")}},
		})).To(Succeed())

		for _, tt := range []struct {
			args []string
			want string
		}{
			{args: []string{"dv/data", "--backup", "data-unknown", "--to", "copy"},
				want: "DemoVolume data lists no backup data-unknown in its status.backups (BackupNotFound)"},
			{args: []string{"dv/data", "--backup", name, "--to", "copy", "--size", "1"},
				want: "Backup " + name + " needs 2Gi, more than the 1Gi of spec.size (BackupTooLarge)"},
			{args: []string{"dv/data", "--backup", name, "--to", "data"},
				want: "a DemoVolume named data is in namespace " + namespace + " already: restore to another name"},
			{args: []string{"dv/data", "--backup", name, "--to", "theirs"},
				want: "a PersistentVolumeClaim named theirs is in namespace " + namespace + " already: restore to another name"},
			{args: []string{"dv/gone", "--backup", "data-unknown", "--to", "copy"},
				want: "No backup data-unknown in namespace " + namespace + " (BackupNotFound)"},
			{args: []string{"dv/gone", "--backup", "foreign", "--to", "copy"},
				want: "VolumeSnapshot foreign is not a backup of a DemoVolume: only those are restored (BackupNotFound)"},
			{args: []string{"dv/gone", "--backup", name, "--to", "copy"},
				want: "backup " + name + ` is of DemoVolume "data", not of gone`},
		} {
			By(strings.Join(tt.args, " "))
			o := run(ctx, env.Config, append([]string{"restore"}, tt.args...)...)
			Expect(o.err).To(MatchError(tt.want))
			Expect(o.out).To(BeEmpty())
		}
		Expect(demoVolumes(ctx)).To(ConsistOf("data"), "nothing made")
	})

	It("refuses a backup that is not ready, as the operator does", func(ctx SpecContext) {
		create(ctx, "data", backedUp)
		bind(ctx, "data", "1Gi")
		Expect(run(ctx, env.Config, "backup", "dv/data").err).To(Succeed())
		listed(ctx, "data", requested, false)
		o := run(ctx, env.Config, "restore", "dv/data", "--backup", requested, "--to", "copy")
		Expect(o.err).To(MatchError("Backup " + requested + " is not ready to restore from yet (BackupNotReady)"))
		Expect(demoVolumes(ctx)).To(ConsistOf("data"), "nothing made")
	})

	It("works for a namespace editor, and says what it could not read", func(ctx SpecContext) {
		editor, err := env.ConfigAs(ctx, "jane", "editor_role.yaml", namespace)
		Expect(err).NotTo(HaveOccurred())
		create(ctx, "data", backedUp)
		bind(ctx, "data", "1Gi")

		done := start(ctx, editor, "backup", "dv/data", "--wait")
		ready(ctx, requested, "1Gi")
		var o output
		Eventually(ctx, done).Should(Receive(&o))
		Expect(o.err).NotTo(HaveOccurred())

		o = run(ctx, editor, "restore", "dv/data", "--backup", requested, "--to", "copy")
		Expect(o.err).NotTo(HaveOccurred())
		Expect(o.errOut).To(Equal("Not checked: whether a PersistentVolumeClaim named copy exists (not allowed to read it); the operator refuses to take one over\n"))

		o = run(ctx, editor, "status", "-o", "json")
		Expect(o.err).NotTo(HaveOccurred())
		var report Overview
		Expect(json.Unmarshal([]byte(o.out), &report)).To(Succeed())
		Expect(report.Resources).To(ConsistOf(HaveField("Name", "data"), HaveField("Name", "copy")))
		Expect(report.Unread).To(ConsistOf("events: not allowed", "the operator's Deployment in namespace seed-operator-system: not allowed",
			"the operator's Lease in namespace seed-operator-system: not allowed",
			"the operator's metrics Service and monitoring objects in namespace seed-operator-system: not allowed"))
	})

	It("shows a namespace's resources and the operator's Lease, reading the cluster of --kubeconfig and -n as kubectl does", func(ctx SpecContext) {
		create(ctx, "data")
		bind(ctx, "data", "1Gi")
		testenv.ExpectCondition(ctx, k8sClient, &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
			seedv1alpha1.ConditionReady, metav1.ConditionTrue, "Bound")
		kubeconfig, err := env.WriteKubeconfig(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())

		var out bytes.Buffer
		cmd := NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: GinkgoWriter})
		cmd.SetArgs([]string{"status", "--kubeconfig", kubeconfig, "-n", namespace, "--operator-namespace", testenv.OperatorNamespace})
		Expect(cmd.ExecuteContext(ctx)).To(Succeed())
		Expect(out.String()).To(MatchRegexp(`(?m)^DemoVolume\s+data\s+True\s+Bound\s+\S+\s+claim data Bound, 1Gi$`))
		Expect(out.String()).To(MatchRegexp("^Operator in namespace "+testenv.OperatorNamespace+": leader \\S+\nMetrics: no Service; monitoring: none\n"),
			"the cluster serves no ServiceMonitor kind: none, and nothing unread")
		Expect(out.String()).To(HaveSuffix("Not read: the operator's Deployment in namespace "+testenv.OperatorNamespace+": not found\n"),
			"envtest runs the operator as a process, with its Lease but no Deployment")
	})
	readReport := func(file string) map[string]string {
		files, err := testenv.ReadTarGz(file)
		Expect(err).NotTo(HaveOccurred())
		return files
	}

	It("writes a support bundle of every resource with its objects and events, with no Secret and no token in it", func(ctx SpecContext) {
		create(ctx, "data")
		bind(ctx, "data", "1Gi")
		const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqYW5lIn0.c2lnbmF0dXJlLWJ5dGVz"
		Expect(k8sClient.Create(ctx, &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: namespace},
			Spec:       seedv1alpha1.EchoSpec{Message: "curl -H 'Authorization: Bearer " + token + "'"},
		})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "seed-operator"}},
			StringData: map[string]string{"password": "s3cr3t-value"},
		})).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
			seedv1alpha1.ConditionReady, metav1.ConditionTrue, "Bound")

		file := filepath.Join(GinkgoT().TempDir(), "report.tar.gz")
		o := run(ctx, env.Config, "report", "-o", file, "--operator-namespace", testenv.OperatorNamespace)
		Expect(o.err).NotTo(HaveOccurred())
		files := readReport(file)
		Expect(o.out).To(Equal(fmt.Sprintf("Wrote %s: %d files\n", file, len(files))))
		Expect(files).To(HaveKey("README.txt"))
		for name := range files {
			if name != "README.txt" {
				Expect(files["README.txt"]).To(ContainSubstring("\n  "+name+"\n"), "the README lists every file")
			}
		}
		resources := "resources/" + namespace + "/"
		Expect(files).To(And(
			HaveKeyWithValue(resources+"demovolumes/data.yaml", ContainSubstring("kind: DemoVolume")),
			HaveKeyWithValue(resources+"echoes/hello.yaml", ContainSubstring("Authorization: Bearer REDACTED")),
			HaveKeyWithValue(resources+"owned/persistentvolumeclaim/data.yaml", ContainSubstring("kind: PersistentVolumeClaim")),
			HaveKeyWithValue(resources+"events.yaml", ContainSubstring("note: Created PersistentVolumeClaim data")),
			HaveKeyWithValue("operator/"+testenv.OperatorNamespace+"/lease.yaml", ContainSubstring("holderIdentity:")),
		))
		for name, content := range files {
			Expect(content).NotTo(Or(ContainSubstring("s3cr3t"), ContainSubstring(base64.StdEncoding.EncodeToString([]byte("s3cr3t-value"))),
				ContainSubstring("kind: Secret"), ContainSubstring("eyJ"), ContainSubstring("managedFields")), name)
		}

		Expect(run(ctx, env.Config, "report", "-o", file).err).To(MatchError(ContainSubstring("file exists")), "never overwrites a file")
	})

	It("writes what a namespace editor may read into the bundle, and names the rest", func(ctx SpecContext) {
		editor, err := env.ConfigAs(ctx, "joe", "editor_role.yaml", namespace)
		Expect(err).NotTo(HaveOccurred())
		create(ctx, "data")

		file := filepath.Join(GinkgoT().TempDir(), "report.tar.gz")
		o := run(ctx, editor, "report", "-o", file)
		Expect(o.err).NotTo(HaveOccurred())
		files := readReport(file)
		Expect(files).To(HaveKey("resources/" + namespace + "/demovolumes/data.yaml"))
		Expect(o.errOut).To(And(
			ContainSubstring("Not read: PersistentVolumeClaims in "+namespace+": not allowed\n"),
			ContainSubstring("Not read: events in "+namespace+": not allowed\n"),
			ContainSubstring("Not read: the operator's Deployments in seed-operator-system: not allowed\n"),
		))
		Expect(files["README.txt"]).To(ContainSubstring("Not read:\n  "))
	})
})
