package webserver

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// podImage is the image the pods are to run: the spec's, unless its
// rollout failed and was taken back.
func podImage(ws *seedv1alpha1.WebServer) string {
	if rb := activeRollback(ws); rb != nil {
		return rb.To
	}
	return ws.Spec.Image
}

// activeRollback is the rollback that holds the pods on an older image:
// the one of the spec's current image, while automatic rollback is on.
func activeRollback(ws *seedv1alpha1.WebServer) *seedv1alpha1.WebServerRollback {
	if rb := ws.Status.Rollback; rb != nil && rb.Image == ws.Spec.Image && ws.AutoRollback() {
		return rb
	}
	return nil
}

// failedRollout is the rollback to make now, or nil: when the pods are
// to run the spec's image over the last available one, and the
// Deployment's controller, having seen that template, reports that the
// rollout passed its progress deadline. The Deployment is as the
// reconcile applied it (the cache keeps no spec of it), so its template
// runs podImage.
func failedRollout(ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment, pods []corev1.Pod, now time.Time) *seedv1alpha1.WebServerRollback {
	last := ws.Status.LastAvailableImage
	switch {
	case !ws.AutoRollback(), last == "", last == ws.Spec.Image, activeRollback(ws) != nil:
		return nil
	case deployment.Status.ObservedGeneration < deployment.Generation:
		return nil
	}
	for _, c := range deployment.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == seedv1alpha1.ReasonProgressDeadlineExceeded {
			return &seedv1alpha1.WebServerRollback{
				Image:  ws.Spec.Image,
				To:     last,
				Reason: whyNotReady(pods),
				Time:   metav1.NewTime(now),
			}
		}
	}
	return nil
}

// whyNotReady says why a rollout's new pods are not ready: what keeps one
// from running, or else that one runs and its readiness probe fails. The
// old pods, ready, say nothing.
func whyNotReady(pods []corev1.Pod) string {
	if problem := podProblem(pods); problem != "" {
		return problem
	}
	var unready []string
	for _, pod := range pods {
		for _, s := range pod.Status.ContainerStatuses {
			if pod.DeletionTimestamp.IsZero() && s.State.Running != nil && !s.Ready {
				unready = append(unready, pod.Name)
			}
		}
	}
	if len(unready) > 0 {
		return fmt.Sprintf("pods %s run and are not ready: their readiness probe fails", strings.Join(unready, ", "))
	}
	return "no new pod became ready"
}
