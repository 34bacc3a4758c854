// Package testenv starts what the envtest suites of the controllers share: a
// real kube-apiserver and etcd with the project's CRDs installed, and a
// manager that runs the controller under test against them.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Env is a running API server with a manager attached.
type Env struct {
	// Config and Client act as a cluster administrator, as the specs do;
	// the manager acts as the operator.
	Config  *rest.Config
	Client  client.Client
	Manager ctrl.Manager
	Applier *apply.Applier

	env    *envtest.Environment
	cancel context.CancelFunc
	done   chan error
}

// Start starts the API server from KUBEBUILDER_ASSETS (which `make test`
// sets) and a manager set up as the operator's: it acts with the operator's
// RBAC only, elects a leader on a Lease, and its cache holds only owned
// objects the operator manages. Call Run once controllers are added.
func Start(owned ...cached.Owned) (*Env, error) {
	for _, v := range []string{"KUBEBUILDER_ASSETS", "SNAPSHOT_CRDS"} {
		if os.Getenv(v) == "" {
			return nil, fmt.Errorf("%s is not set: run the tests with `make test`, which builds the control plane and finds the snapshot CRDs", v)
		}
	}
	env := crdEnvironment()
	cfg, err := env.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting the API server: %w", err), stopStarted(env))
	}
	e, err := operatorEnv(env, cfg, owned...)
	if err != nil {
		return nil, errors.Join(err, stopStarted(env))
	}
	return e, nil
}

// stopStarted stops what env started: its Start leaves etcd and the API
// server running when a step after theirs fails, such as installing the
// CRDs.
func stopStarted(env *envtest.Environment) error {
	if err := env.Stop(); err != nil {
		return fmt.Errorf("stopping the API server: %w", err)
	}
	return nil
}

// operatorEnv is the Env of the API server env runs at cfg: a client of
// it, and the operator's manager and Applier.
func operatorEnv(env *envtest.Environment, cfg *rest.Config, owned ...cached.Owned) (*Env, error) {
	scheme := clientgoscheme.Scheme
	utilruntime.Must(seedv1alpha1.AddToScheme(scheme))
	utilruntime.Must(snapshotv1.AddToScheme(scheme))
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}

	operator, err := operatorConfig(context.Background(), env, c)
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(operator, ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		Cache:                         cached.Options(nil, owned...),
		LeaderElection:                true,
		LeaderElectionID:              kube.LeaderElectionID,
		LeaderElectionNamespace:       OperatorNamespace,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	applier, err := apply.NewApplier(mgr)
	if err != nil {
		return nil, err
	}
	return &Env{
		Config:  cfg,
		Client:  c,
		Manager: mgr,
		Applier: applier,
		env:     env,
	}, nil
}

// crdEnvironment is an API server from KUBEBUILDER_ASSETS, with the
// project's CRDs, the snapshot CRDs of SNAPSHOT_CRDS (which `make test`
// sets), and the admission plugins the operator's RBAC answers to.
func crdEnvironment() *envtest.Environment {
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(ProjectRoot(), "config", "crd", "bases"), os.Getenv("SNAPSHOT_CRDS")},
		ErrorIfCRDPathMissing: true,
		// envtest waits 10 s for the CRDs to be served, which an API server
		// that has just started on a busy machine can miss.
		CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: time.Minute},
	}
	// As OpenShift and the local cluster run it: changing an object's
	// owner references takes delete on it, and blocking its owner's
	// deletion takes update on the owner's finalizers.
	env.ControlPlane.GetAPIServer().Configure().Append("enable-admission-plugins", "OwnerReferencesPermissionEnforcement")
	return env
}

// Run starts the manager in the background.
func (e *Env) Run() {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.done = make(chan error, 1)
	go func() { e.done <- e.Manager.Start(ctx) }()
}

// Stop stops the manager, then the API server.
func (e *Env) Stop() error {
	var managerErr error
	if e.cancel != nil {
		e.cancel()
		managerErr = <-e.done
	}
	if err := e.env.Stop(); err != nil {
		return fmt.Errorf("stopping the API server: %w", err)
	}
	return managerErr
}

// WriteKubeconfig writes a kubeconfig for the cluster administrator into
// dir, for command-line tools such as kubectl, and returns its path.
func (e *Env) WriteKubeconfig(dir string) (string, error) {
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, e.env.KubeConfig, 0o600); err != nil {
		return "", fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return path, nil
}

// ProjectRoot is the directory of the project's go.mod, the first one up
// from the working directory: go test runs a package's tests in its own
// directory. (Not from runtime.Caller: builds here are -trimpath.)
func ProjectRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(fmt.Sprintf("finding the project's root: %v", err))
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("finding the project's root: no go.mod above the working directory")
		}
		dir = parent
	}
}
