package testenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// FuzzNamespace is where fuzz targets build their objects.
const FuzzNamespace = "fuzz"

// FuzzClient is an administrator's client, for a fuzz target, to an API
// server with the CRDs and the namespace FuzzNamespace. Fuzzing (go test
// -fuzz, as make fuzz runs it) needs one that outlives the fuzzer's worker
// processes, which are killed when the time is up: the one FUZZ_KUBECONFIG
// names. Otherwise, as go test runs the seed corpus, it starts one, stopped
// when the target ends.
func FuzzClient(f *testing.F) client.Client {
	f.Helper()
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(seedv1alpha1.AddToScheme(scheme))
	cfg, err := fuzzConfig(f)
	if err != nil {
		f.Fatal(err)
	}
	// Not throttled: the fuzzer's requests are the point.
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		f.Fatalf("creating a client: %v", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: FuzzNamespace}}
	if err := client.IgnoreAlreadyExists(c.Create(context.Background(), ns)); err != nil {
		f.Fatalf("creating namespace %s: %v", FuzzNamespace, err)
	}
	return c
}

// fuzzConfig is the configuration of the API server for FuzzClient.
func fuzzConfig(f *testing.F) (*rest.Config, error) {
	if kubeconfig := os.Getenv("FUZZ_KUBECONFIG"); kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if fuzz := flag.Lookup("test.fuzz"); fuzz != nil && fuzz.Value.String() != "" {
		return nil, errors.New("fuzzing needs an API server that outlives its workers: set FUZZ_KUBECONFIG, as make fuzz does")
	}
	env := crdEnvironment()
	cfg, err := env.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting the API server (make test builds it): %w", err), stopStarted(env))
	}
	f.Cleanup(func() {
		if err := stopStarted(env); err != nil {
			f.Error(err)
		}
	})
	return cfg, nil
}

// Admitted tells whether the API server admits obj, a custom resource, and
// then fills it in as the API server would store it: defaulted, with a UID.
// It stores nothing (a dry run). An answer other than admitted or refused
// as invalid fails the test.
func Admitted(t *testing.T, c client.Client, obj client.Object) bool {
	t.Helper()
	err := c.Create(t.Context(), obj, client.DryRunAll)
	switch {
	case err == nil:
		return true
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return false
	}
	t.Fatalf("creating %T (a dry run): %v", obj, err)
	return false
}

// ExpectAccepted fails the test unless the API server accepts desired, an
// object the operator builds, as the operator applies it. It stores nothing
// (a dry run).
func ExpectAccepted(t *testing.T, c client.Client, desired runtime.ApplyConfiguration) {
	t.Helper()
	if err := c.Apply(t.Context(), desired, client.DryRunAll, client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
		t.Errorf("the API server refuses what the operator builds from a spec it admits: %v", err)
	}
}

// Quantities is the resource list of the quantities given as text, leaving
// out those that do not parse: a fuzzed spec can hold only valid ones.
func Quantities(text map[corev1.ResourceName]string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for name, s := range text {
		if q, err := resource.ParseQuantity(s); err == nil {
			list[name] = q
		}
	}
	return list
}
