package plugin

import (
	"context"
	"fmt"
	"slices"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// restoreOptions are the flags of restore.
type restoreOptions struct {
	backup, to string
	size       int32
	waitFlags
}

func newRestoreCommand(s *Session) *cobra.Command {
	var o restoreOptions
	cmd := s.takes(demoVolumes, &cobra.Command{
		Use:   "restore dv/NAME --backup BACKUP --to NEW",
		Short: "Make a new DemoVolume from a backup of another",
		Long: "Make the DemoVolume NEW from the backup BACKUP of the DemoVolume NAME, with NAME's\n" +
			"storage class, access modes and reclaim policy, and its size unless --size says\n" +
			"otherwise. NAME may be gone (its backups stay when its reclaimPolicy is Retain):\n" +
			"then NEW takes the backup's size. What the operator would refuse (no such backup,\n" +
			"one not ready, one larger than NEW, a name in use) is refused before anything is made.",
		Example: "  # Restore the backup data-request-6b86b273ff of data into a new DemoVolume, data-copy\n" +
			"  kubectl seed restore dv/data --backup data-request-6b86b273ff --to data-copy --wait",
	}, func(ctx context.Context, name string) error { return s.restore(ctx, name, o) })
	cmd.Flags().StringVar(&o.backup, "backup", "", "The backup to restore, as the DemoVolume's status.backups names it")
	cmd.Flags().StringVar(&o.to, "to", "", "The name of the new DemoVolume, and of its claim")
	cmd.Flags().Int32Var(&o.size, "size", 0, "The new DemoVolume's size in GiB (default: the source's, or the backup's when the source is gone)")
	utilruntime.Must(cmd.MarkFlagRequired("backup"))
	utilruntime.Must(cmd.MarkFlagRequired("to"))
	utilruntime.Must(cmd.RegisterFlagCompletionFunc("backup", s.complete(&snapshotv1.VolumeSnapshotList{}, "")))
	o.add(cmd, "the new DemoVolume is Ready")
	return cmd
}

// restore makes the DemoVolume o.to from o.backup, a backup of source.
func (s *Session) restore(ctx context.Context, source string, o restoreOptions) error {
	dv, err := s.restored(ctx, source, o)
	if err != nil {
		return err
	}
	if err := s.Client.Create(ctx, dv); err != nil {
		return fmt.Errorf("creating DemoVolume %s: %w", o.to, err)
	}
	if err := say(s.Out, "demovolume/%s created from backup %s", o.to, o.backup); err != nil || !o.wait {
		return err
	}
	err = s.until(ctx, o.waitFlags, dv, func() (bool, error) {
		ready := meta.FindStatusCondition(dv.Status.Conditions, seedv1alpha1.ConditionReady)
		switch {
		case ready == nil || ready.ObservedGeneration != dv.Generation:
			return false, nil
		case ready.Status == metav1.ConditionTrue:
			return true, nil
		case slices.Contains([]string{backup.ReasonNotFound, backup.ReasonNotReady, backup.ReasonTooLarge}, ready.Reason):
			// Only a change of the backup can still help; the restore waits for it, but this command does not.
			return false, fmt.Errorf("the operator does not restore it: %s", ready.Message)
		}
		return false, nil
	}, func() string { return describeCondition(dv.Status.Conditions, seedv1alpha1.ConditionReady) })
	if err != nil {
		return err
	}
	return say(s.Out, "demovolume/%s is Ready, restored from %s", o.to, o.backup)
}

// restored is the DemoVolume that restores o.backup, or why the operator
// would refuse to make it. The backup is read from the source's
// status.backups, which whoever may edit DemoVolumes may read; from the
// VolumeSnapshot itself only when the source is gone.
func (s *Session) restored(ctx context.Context, source string, o restoreOptions) (*seedv1alpha1.DemoVolume, error) {
	key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: s.Namespace, Name: name} }
	dv := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: o.to, Namespace: s.Namespace}}
	from := &seedv1alpha1.DemoVolume{}
	var snapshot *snapshotv1.VolumeSnapshot
	switch err := s.Client.Get(ctx, key(source), from); {
	case err == nil:
		i := slices.IndexFunc(from.Status.Backups, func(b seedv1alpha1.DemoVolumeBackupStatus) bool { return b.Name == o.backup })
		if i < 0 {
			return nil, fmt.Errorf("DemoVolume %s lists no backup %s in its status.backups (%s)", source, o.backup, backup.ReasonNotFound)
		}
		snapshot = listedSnapshot(source, from.Status.Backups[i])
		dv.Spec = seedv1alpha1.DemoVolumeSpec{
			Size:             from.Spec.Size,
			StorageClassName: from.Spec.StorageClassName,
			AccessModes:      from.Spec.AccessModes,
			ReclaimPolicy:    from.Spec.ReclaimPolicy,
		}
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading DemoVolume %s: %w", source, err)
	default:
		if snapshot, err = s.retained(ctx, source, o.backup); err != nil {
			return nil, err
		}
		if size := snapshot.Status; size != nil && size.RestoreSize != nil {
			dv.Spec.Size = gibibytes(*size.RestoreSize)
		}
	}
	if o.size != 0 {
		dv.Spec.Size = o.size
	}
	dv.Spec.Name = o.to
	dv.Spec.RestoreFrom = &seedv1alpha1.DemoVolumeRestoreSource{BackupName: o.backup}
	if reason, message := backup.RestoreRefusal(snapshot, dv.SizeQuantity()); reason != "" {
		return nil, fmt.Errorf("%s (%s)", message, reason)
	}
	if dv.Spec.Size == 0 {
		return nil, fmt.Errorf("DemoVolume %s is gone and backup %s gives no size: give --size", source, o.backup)
	}
	return dv, s.nameFree(ctx, o.to)
}

// retained is the backup name of the DemoVolume source, which is gone.
func (s *Session) retained(ctx context.Context, source, name string) (*snapshotv1.VolumeSnapshot, error) {
	snapshot := &snapshotv1.VolumeSnapshot{}
	switch err := s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, snapshot); {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("%s (%s)", backup.NotFound(name, s.Namespace), backup.ReasonNotFound)
	case err != nil:
		return nil, fmt.Errorf("DemoVolume %s is gone, so backup %s is read from its VolumeSnapshot: %w", source, name, err)
	}
	if of := snapshot.Labels[kube.LabelInstance]; of != source {
		return nil, fmt.Errorf("backup %s is of DemoVolume %q, not of %s", name, of, source)
	}
	return snapshot, nil
}

// listedSnapshot is the backup as the DemoVolume source lists it, as much
// of its VolumeSnapshot as a restore reads.
func listedSnapshot(source string, listed seedv1alpha1.DemoVolumeBackupStatus) *snapshotv1.VolumeSnapshot {
	snapshot := &snapshotv1.VolumeSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: listed.Name, Labels: kube.Labels(backup.Kind, source)},
		Status:     &snapshotv1.VolumeSnapshotStatus{ReadyToUse: &listed.ReadyToUse},
	}
	if size, err := resource.ParseQuantity(listed.Size); err == nil {
		snapshot.Status.RestoreSize = &size
	}
	return snapshot
}

// nameFree says whether name is free for a DemoVolume and its claim. A
// claim that the user may not read is left for the operator to find.
func (s *Session) nameFree(ctx context.Context, name string) error {
	for _, taken := range []client.Object{&seedv1alpha1.DemoVolume{}, &corev1.PersistentVolumeClaim{}} {
		kinds, _, err := Scheme.ObjectKinds(taken)
		if err != nil {
			return err
		}
		kind := kinds[0].Kind
		switch err := s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, taken); {
		case err == nil:
			return fmt.Errorf("a %s named %s is in namespace %s already: restore to another name", kind, name, s.Namespace)
		case apierrors.IsForbidden(err):
			err := say(s.ErrOut, "Not checked: whether a %s named %s exists (not allowed to read it); the operator refuses to take one over", kind, name)
			if err != nil {
				return err
			}
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading %s %s: %w", kind, name, err)
		}
	}
	return nil
}

// gibibytes is q in whole GiB, rounded up, as spec.size takes it.
func gibibytes(q resource.Quantity) int32 {
	const gib = 1 << 30
	return int32((q.Value() + gib - 1) / gib)
}
