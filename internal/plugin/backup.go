package plugin

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
)

func newBackupCommand(s *Session) *cobra.Command {
	var w waitFlags
	cmd := s.takes(demoVolumes, &cobra.Command{
		Use:   "backup dv/NAME",
		Short: "Take a backup of a DemoVolume now",
		Long: "Take a backup of a DemoVolume now, as its seed.example.com/backup-request\n" +
			"annotation asks the operator to, and print the backup's name.",
		Example: "  # Back up the DemoVolume data, and wait until the backup can be restored from\n" +
			"  kubectl seed backup dv/data --wait",
	}, func(ctx context.Context, name string) error { return s.backup(ctx, name, w) })
	w.add(cmd, "the backup is ready to restore from")
	return cmd
}

// backup asks the operator for a backup of the DemoVolume name, by a
// request of its own, and names the backup that request makes.
func (s *Session) backup(ctx context.Context, name string, w waitFlags) error {
	dv := &seedv1alpha1.DemoVolume{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, dv); err != nil {
		return fmt.Errorf("reading DemoVolume %s: %w", name, err)
	}
	if dv.Spec.Backup == nil {
		return fmt.Errorf("DemoVolume %s takes no backups: set its spec.backup first (`backup: {}` for backups on request only)", name)
	}
	request := s.Now().UTC().Format(time.RFC3339Nano)
	patch := client.MergeFrom(dv.DeepCopy())
	metav1.SetMetaDataAnnotation(&dv.ObjectMeta, seedv1alpha1.BackupAnnotation, request)
	if err := s.Client.Patch(ctx, dv, patch); err != nil {
		return fmt.Errorf("requesting a backup of DemoVolume %s: %w", name, err)
	}
	taken := backup.RequestedName(name, request)
	if err := say(s.Out, "demovolume/%s: backup %s requested", name, taken); err != nil || !w.wait {
		return err
	}
	var listed *seedv1alpha1.DemoVolumeBackupStatus
	err := s.until(ctx, w, dv, func() (bool, error) {
		listed = nil
		for i, b := range dv.Status.Backups {
			if b.Name == taken {
				listed = &dv.Status.Backups[i]
			}
		}
		switch {
		case listed == nil:
			return false, nil
		case listed.Error != "":
			return false, fmt.Errorf("backup %s failed: %s", taken, listed.Error)
		}
		return listed.ReadyToUse, nil
	}, func() string {
		if listed != nil {
			return fmt.Sprintf("backup %s is not ready to use yet", taken)
		}
		return fmt.Sprintf("backup %s is not listed yet; %s", taken, describeCondition(dv.Status.Conditions, seedv1alpha1.DemoVolumeBackedUp))
	})
	if err != nil {
		return err
	}
	return say(s.Out, "demovolume/%s: backup %s is ready to restore from", name, taken)
}

// describeCondition says what a condition is, as a user reads it.
func describeCondition(conditions []metav1.Condition, conditionType string) string {
	c := meta.FindStatusCondition(conditions, conditionType)
	if c == nil {
		return conditionType + " is not reported yet"
	}
	return fmt.Sprintf("%s is %s (%s): %s", conditionType, c.Status, c.Reason, c.Message)
}
