// Command seed-operator runs the controllers of the seed.example.com kinds.
package main

import (
	"crypto/tls"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/controllers"
	"github.com/seed-operators/seed-operator/controllers/demovolume"
	"github.com/seed-operators/seed-operator/controllers/echo"
	"github.com/seed-operators/seed-operator/controllers/immortalcontainer"
	"github.com/seed-operators/seed-operator/controllers/webserver"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/metricsauth"
	"github.com/seed-operators/seed-operator/internal/reconnect"
	"github.com/seed-operators/seed-operator/internal/selfmonitor"
	"github.com/seed-operators/seed-operator/internal/statemetrics"
	"github.com/seed-operators/seed-operator/internal/volumestats"
	"github.com/seed-operators/seed-operator/internal/watch"
)

var scheme = runtime.NewScheme()

// The ServiceMonitor and PrometheusRule that config/prometheus installs
// with kustomize, which the operator keeps itself with --metrics-service.
var (
	//go:embed config/prometheus/monitor.yaml
	serviceMonitor []byte
	//go:embed config/prometheus/rules.yaml
	prometheusRule []byte
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(seedv1alpha1.AddToScheme(scheme))
	utilruntime.Must(snapshotv1.AddToScheme(scheme))
}

// options are the command line flags, named as in kubebuilder's scaffold.
type options struct {
	metricsAddr            string
	secureMetrics          bool
	enableHTTP2            bool
	probeAddr              string
	pprofAddr              string
	leaderElect            bool
	leaderElectionNS       string
	leaderElectionIdentity string
	leaseDuration          time.Duration
	renewDeadline          time.Duration
	retryPeriod            time.Duration
	gracefulShutdownPeriod time.Duration
	concurrentReconciles   int
	metricsService         string
}

func main() {
	var o options
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "0",
		"The address the metrics endpoint binds to, e.g. :8443 for HTTPS or :8080 for HTTP. 0 turns it off.")
	flag.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, to clients that authenticate and are authorized to get /metrics.")
	flag.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Serve metrics over HTTP/2 as well. Off by default against the HTTP/2 Stream Cancellation and Rapid Reset CVEs.")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "The address the liveness and readiness probes bind to.")
	flag.StringVar(&o.pprofAddr, "pprof-bind-address", "0",
		"The address pprof's profiles are served on, without authentication: bind it to loopback. 0 turns it off.")
	flag.BoolVar(&o.leaderElect, "leader-elect", false,
		"Elect a leader on a Lease, so that of several replicas only one reconciles at a time.")
	flag.StringVar(&o.leaderElectionNS, "leader-election-namespace", os.Getenv("POD_NAMESPACE"),
		"The namespace of the leader election Lease. Defaults to POD_NAMESPACE, then to the pod's namespace; required outside a cluster.")
	flag.StringVar(&o.leaderElectionIdentity, "leader-election-identity", os.Getenv("POD_NAME"),
		"Who this replica is on the Lease: its pod's name (POD_NAME), so that a manager restarted in its pod takes the lead back at once. "+
			"Empty: the host's name and a suffix new at each start.")
	// As kubeadm runs the control plane: a leader that dies is replaced
	// within seconds, and one that cannot renew for a while (an API server
	// gone) exits, to be restarted with fresh informers.
	flag.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", kube.DefaultLeaseDuration,
		"How long followers wait after the last renewal before taking the lead.")
	flag.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", kube.DefaultRenewDeadline,
		"How long the leader keeps trying to renew before it gives the lead up.")
	flag.DurationVar(&o.retryPeriod, "leader-elect-retry-period", kube.DefaultRetryPeriod,
		"How often candidates try to acquire or renew the lead.")
	flag.DurationVar(&o.gracefulShutdownPeriod, "graceful-shutdown-timeout", 30*time.Second,
		"How long in-flight reconciles may take to finish once the process is asked to stop.")
	// 32, as many as the raw client-go baseline of `make bench` creates
	// objects with: at 1,000 WebServers it is Ready in 99 s where 8
	// workers take 118 s and 1 worker 154 s (docs/performance.md).
	flag.IntVar(&o.concurrentReconciles, "max-concurrent-reconciles", 32,
		"How many custom resources of each kind are reconciled at once.")
	flag.StringVar(&o.metricsService, "metrics-service", "",
		"The Service of the metrics endpoint, in the operator's namespace (POD_NAMESPACE). When set, the operator keeps a ServiceMonitor "+
			"and a PrometheusRule for it while prometheus-operator's API is served (the OLM bundle cannot ship them). Empty: it keeps none.")
	zapOpts := zap.Options{Development: false}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	logger := zap.New(zap.UseFlagOptions(&zapOpts))
	ctrl.SetLogger(logger)
	// client-go logs through klog: the same JSON lines, not klog's text.
	klog.SetLogger(logger)

	if err := run(o); err != nil {
		ctrl.Log.Error(err, "Operator stopped")
		os.Exit(1)
	}
}

// reconciler is a controller that registers itself with the manager.
type reconciler interface {
	SetupWithManager(mgr ctrl.Manager) error
}

func run(o options) error {
	setupLog := ctrl.Log.WithName("setup")

	memoryLimit, err := tuneMemory()
	if err != nil {
		return err
	}

	namespaces, err := watch.Namespaces(os.Getenv(watch.NamespaceEnv))
	if err != nil {
		return err
	}
	if o.leaderElect {
		if err := kube.CheckLeaseTimings(o.leaseDuration, o.renewDeadline, o.retryPeriod); err != nil {
			return fmt.Errorf("leader election: %w", err)
		}
	}

	ctx := ctrl.SetupSignalHandler()
	restConfig := ctrl.GetConfigOrDie()
	// As kube-controller-manager and the scheduler do: next to its API
	// server, gzip costs both ends CPU and saves bandwidth nobody lacks.
	// The streamed lists of the informers are compressed otherwise.
	restConfig.DisableCompression = true
	if err := reconnect.WaitForAPIServer(ctx, restConfig); err != nil {
		return err
	}
	lock, err := leaderElectionLock(restConfig, o)
	if err != nil {
		return err
	}
	// DemoVolumes' backups need the VolumeSnapshot API, which a cluster
	// may not serve: the operator runs without them then.
	snapshots, err := kube.Served(restConfig, demovolume.SnapshotGVK)
	if err != nil {
		return err
	}
	owned := controllers.Owned
	if snapshots {
		owned = append(slices.Clone(owned), demovolume.OwnedSnapshots)
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                              scheme,
		Metrics:                             metricsOptions(o),
		HealthProbeBindAddress:              o.probeAddr,
		PprofBindAddress:                    o.pprofAddr,
		LeaderElection:                      o.leaderElect,
		LeaderElectionID:                    kube.LeaderElectionID,
		LeaderElectionNamespace:             o.leaderElectionNS,
		LeaderElectionReleaseOnCancel:       true,
		LeaderElectionResourceLockInterface: lock,
		LeaseDuration:                       &o.leaseDuration,
		RenewDeadline:                       &o.renewDeadline,
		RetryPeriod:                         &o.retryPeriod,
		GracefulShutdownTimeout:             &o.gracefulShutdownPeriod,
		Cache:                               cached.Options(namespaces, owned...),
		Controller:                          config.Controller{MaxConcurrentReconciles: o.concurrentReconciles},
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	applier, err := apply.NewApplier(mgr)
	if err != nil {
		return err
	}
	c := mgr.GetClient()
	usage, err := volumestats.NewReader(restConfig, mgr.GetAPIReader())
	if err != nil {
		return err
	}
	for name, r := range map[string]reconciler{
		"webserver":         &webserver.Reconciler{Client: c, Applier: applier},
		"echo":              &echo.EchoReconciler{Client: c, Applier: applier},
		"scheduledecho":     &echo.ScheduledEchoReconciler{Client: c, Applier: applier},
		"immortalcontainer": &immortalcontainer.Reconciler{Client: c, Applier: applier},
		"demovolume":        &demovolume.Reconciler{Client: c, Applier: applier, Snapshots: snapshots, Usage: usage},
	} {
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", name, err)
		}
	}
	if err := statemetrics.Register(mgr, owned...); err != nil {
		return err
	}
	if o.metricsService != "" {
		if err := keepSelfMonitor(mgr, o.metricsService); err != nil {
			return err
		}
	}
	// go_build_info names the operator's binary, so that the alerts can
	// tell its series from other operators' without knowing how it was
	// installed.
	if err := ctrlmetrics.Registry.Register(collectors.NewBuildInfoCollector()); err != nil {
		return fmt.Errorf("registering the build information metric: %w", err)
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding the liveness check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("adding the readiness check: %w", err)
	}

	setupLog.Info("Starting the manager", "namespaces", namespaceNames(namespaces), "goMemoryLimit", memoryLimitText(memoryLimit))
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// keepSelfMonitor has the leader keep the ServiceMonitor and PrometheusRule
// of the metrics Service named service, in the operator's namespace.
func keepSelfMonitor(mgr ctrl.Manager, service string) error {
	namespace := os.Getenv("POD_NAMESPACE")
	if namespace == "" {
		return errors.New("--metrics-service needs POD_NAMESPACE, the namespace of the Service")
	}
	disco, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("creating a discovery client: %w", err)
	}
	keeper := &selfmonitor.Keeper{
		Client:    mgr.GetClient(),
		Reader:    mgr.GetAPIReader(),
		Discovery: disco,
		Service:   types.NamespacedName{Namespace: namespace, Name: service},
		Manifests: [][]byte{serviceMonitor, prometheusRule},
		Period:    selfmonitor.DefaultPeriod,
		Log:       ctrl.Log.WithName("selfmonitor"),
	}
	if err := mgr.Add(keeper); err != nil {
		return fmt.Errorf("adding the ServiceMonitor's keeper: %w", err)
	}
	return nil
}

// leaderElectionLock is the Lease held under the replica's own identity
// when it has one (kube.LeaderElectionLock), and nil otherwise, for the
// manager to hold it under a new identity at each start.
func leaderElectionLock(restConfig *rest.Config, o options) (resourcelock.Interface, error) {
	if !o.leaderElect || o.leaderElectionIdentity == "" {
		return nil, nil
	}
	if o.leaderElectionNS == "" {
		return nil, fmt.Errorf("leader election as %s needs the Lease's namespace: set POD_NAMESPACE or --leader-election-namespace",
			o.leaderElectionIdentity)
	}
	return kube.LeaderElectionLock(restConfig, o.leaderElectionNS, o.leaderElectionIdentity, o.renewDeadline)
}

// metricsOptions serves metrics over HTTPS to authenticated and authorized
// clients only (TokenReview and SubjectAccessReview), unless told otherwise.
func metricsOptions(o options) metricsserver.Options {
	opts := metricsserver.Options{
		BindAddress:   o.metricsAddr,
		SecureServing: o.secureMetrics,
	}
	if o.secureMetrics {
		opts.FilterProvider = metricsauth.Filter
	}
	if !o.enableHTTP2 {
		opts.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	return opts
}

func namespaceNames(namespaces map[string]cache.Config) []string {
	if namespaces == nil {
		return []string{"(all)"}
	}
	names := make([]string, 0, len(namespaces))
	for name := range namespaces {
		names = append(names, name)
	}
	return names
}
