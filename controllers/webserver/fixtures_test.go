package webserver

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// newWebServer is a WebServer as the API server stores it after defaulting,
// changed by each mutate function in turn.
func newWebServer(mutate ...func(*seedv1alpha1.WebServer)) *seedv1alpha1.WebServer {
	ws := &seedv1alpha1.WebServer{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", UID: "uid-1", Generation: 1},
		Spec: seedv1alpha1.WebServerSpec{
			Replicas:      ptr.To[int32](1),
			Image:         seedv1alpha1.DefaultWebServerImage,
			ContainerPort: 8080,
			Port:          80,
			ServiceType:   corev1.ServiceTypeClusterIP,
		},
	}
	for _, m := range mutate {
		m(ws)
	}
	return ws
}
