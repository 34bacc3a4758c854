package plugin

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// revisionAnnotation is the Deployment controller's revision of a
// ReplicaSet.
const revisionAnnotation = "deployment.kubernetes.io/revision"

func newRolloutCommand(s *Session) *cobra.Command {
	rollout := &cobra.Command{
		Use:   "rollout",
		Short: "Show a WebServer's rollout as the operator sees it",
		Example: "  # Where the rollout of the WebServer web stands, and which images it ran\n" +
			"  kubectl seed rollout status ws/web\n  kubectl seed rollout history ws/web",
	}
	for _, sub := range []struct {
		use, short, example string
		history             bool
	}{
		{use: "status", short: "Show a WebServer's image, replicas, last available image and last rollback",
			example: "  # Where the rollout of the WebServer web stands\n  kubectl seed rollout status ws/web"},
		{use: "history", short: "List a WebServer's revisions, their images and their pods, newest first",
			example: "  # Which images the WebServer web ran\n  kubectl seed rollout history ws/web", history: true},
	} {
		rollout.AddCommand(s.takes(webServers, &cobra.Command{
			Use:     sub.use + " ws/NAME",
			Short:   sub.short,
			Example: sub.example,
		}, func(ctx context.Context, name string) error {
			ws := &seedv1alpha1.WebServer{}
			if err := s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, ws); err != nil {
				return fmt.Errorf("reading WebServer %s: %w", name, err)
			}
			if !sub.history {
				return writeRollout(s.Out, ws)
			}
			revisions, err := s.revisions(ctx, ws)
			if err != nil {
				return err
			}
			return writeHistory(s.Out, ws, revisions, s.Now())
		}))
	}
	return rollout
}

// writeRollout writes where ws's rollout stands.
func writeRollout(out io.Writer, ws *seedv1alpha1.WebServer) error {
	r := webServer(ws)
	p := newPrinter(out)
	p.printf("webserver/%s\n", ws.Name)
	p.printf("Image:\t%s\n", ws.Spec.Image)
	p.printf("Replicas:\t%d desired, %d updated, %d ready\n",
		ptr.Deref(ws.Spec.Replicas, ws.Status.Replicas), ws.Status.UpdatedReplicas, ws.Status.ReadyReplicas)
	p.printf("Last available image:\t%s\n", cmp.Or(ws.Status.LastAvailableImage, "none yet"))
	rollback := "none"
	if rb := ws.Status.Rollback; rb != nil {
		rollback = rollbackLine(rb)
	}
	p.printf("Last rollback:\t%s\n", rollback)
	p.printf("Ready:\t%s (%s) %s\n", cmp.Or(r.Ready, metav1.ConditionUnknown), r.Reason, r.Message)
	return p.flush()
}

// revisions are the ReplicaSets of ws's Deployment, newest first.
func (s *Session) revisions(ctx context.Context, ws *seedv1alpha1.WebServer) ([]appsv1.ReplicaSet, error) {
	deployment := &appsv1.Deployment{}
	if err := s.Client.Get(ctx, client.ObjectKeyFromObject(ws), deployment); err != nil {
		return nil, fmt.Errorf("reading the Deployment of WebServer %s: %w", ws.Name, err)
	}
	sets := &appsv1.ReplicaSetList{}
	if err := s.Client.List(ctx, sets, client.InNamespace(ws.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the ReplicaSets of WebServer %s: %w", ws.Name, err)
	}
	owned := slices.DeleteFunc(sets.Items, func(rs appsv1.ReplicaSet) bool { return !metav1.IsControlledBy(&rs, deployment) })
	slices.SortFunc(owned, func(a, b appsv1.ReplicaSet) int { return revision(b) - revision(a) })
	return owned, nil
}

func revision(rs appsv1.ReplicaSet) int {
	n, _ := strconv.Atoi(rs.Annotations[revisionAnnotation])
	return n
}

// writeHistory writes ws's revisions, newest first, and its last rollback.
func writeHistory(out io.Writer, ws *seedv1alpha1.WebServer, revisions []appsv1.ReplicaSet, now time.Time) error {
	p := newPrinter(out)
	p.printf("REVISION\tIMAGE\tPODS\tREADY\tCREATED\n")
	for _, rs := range revisions {
		image := ""
		if containers := rs.Spec.Template.Spec.Containers; len(containers) > 0 {
			image = containers[0].Image
		}
		p.printf("%d\t%s\t%d\t%d\t%s ago\n", revision(rs), image, rs.Status.Replicas, rs.Status.ReadyReplicas, age(rs.CreationTimestamp, now))
	}
	if rb := ws.Status.Rollback; rb != nil {
		p.printf("\nLast rollback: %s\n", rollbackLine(rb))
	}
	return p.flush()
}
