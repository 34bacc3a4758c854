package testenv

import (
	"fmt"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// ClusterClients are a cluster suite's clients: one that knows the built-in
// kinds, CRDs, the operator's kinds, VolumeSnapshots and the kinds add
// adds, and a clientset, which reads pod logs.
func ClusterClients(cfg *rest.Config, add ...func(*runtime.Scheme) error) (client.Client, *kubernetes.Clientset, error) {
	scheme := runtime.NewScheme()
	adders := append([]func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, seedv1alpha1.AddToScheme, snapshotv1.AddToScheme,
	}, add...)
	for _, addToScheme := range adders {
		if err := addToScheme(scheme); err != nil {
			return nil, nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, fmt.Errorf("creating a client: %w", err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("creating a clientset: %w", err)
	}
	return c, clientset, nil
}
