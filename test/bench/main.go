// Command bench measures what the operator costs on top of the objects it
// makes: on the local cluster's kwok nodes, raw client-go makes N of the
// objects each kind stands for (the baseline), then the operator, run as a
// local process with its in-cluster flags, is given N custom resources of
// each kind at once. It prints a table and writes the figures as JSON;
// `bench compare OLD NEW` prints the ratios of two such files.
//
// usage: bench [-n 100,1000] [-kinds WebServer,Echo] [-idle 60s] [-repeat 3] [-out FILE] [-- OPERATOR-FLAG...]
//
//	bench compare OLD.json NEW.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// clients talk to the cluster as its admin.
type clients struct {
	dyn  dynamic.Interface
	kube kubernetes.Interface
	// mapper learns the custom resources once the operator installs them.
	mapper *restmapper.DeferredDiscoveryRESTMapper
	// pidDir holds the pid files of the local cluster's processes.
	pidDir string
}

type config struct {
	sizes   []int
	kinds   []kind
	workers int
	idle    time.Duration
	out     string
	root    string
	cluster string
	flags   []string
	// memoryLimit is the operator's container memory limit, in bytes,
	// which it is given as the manifests give it.
	memoryLimit int64
	// allowBusy measures on a cluster that holds another burst's objects.
	allowBusy bool
	// repeat is how many times each size runs.
	repeat int
	// previous is the folder of the committed runs each figure is
	// compared with.
	previous string
	// profile takes the operator's CPU profiles in each burst.
	profile bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		if len(os.Args) != 4 {
			fail(fmt.Errorf("usage: %s compare OLD.json NEW.json", os.Args[0]))
		}
		fail(compare(os.Stdout, os.Args[2], os.Args[3]))
		return
	}
	cfg, err := parseFlags()
	fail(err)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fail(bench(ctx, cfg))
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags() (config, error) {
	var cfg config
	sizes := flag.String("n", "100,1000", "How many custom resources of each kind, one run per size, comma-separated.")
	names := flag.String("kinds", "WebServer,Echo,ImmortalContainer,DemoVolume", "The kinds to measure, comma-separated.")
	flag.IntVar(&cfg.workers, "workers", 32, "How many goroutines create the objects.")
	flag.IntVar(&cfg.repeat, "repeat", 1, "How many times to run each size; past one, the median and spread of each figure are printed too.")
	flag.DurationVar(&cfg.idle, "idle", time.Minute, "How long to watch the operator idle once every object is Ready.")
	flag.StringVar(&cfg.out, "out", "", "The JSON file to write (default bin/bench/<time>.json).")
	flag.StringVar(&cfg.cluster, "cluster", filepath.Join("bin", "cluster"), "The local cluster's directory, where its processes' pid files are.")
	flag.BoolVar(&cfg.allowBusy, "allow-busy", false, "Measure even when the cluster holds another burst's objects.")
	flag.StringVar(&cfg.previous, "previous", filepath.Join("test", "bench", "results"), "The committed runs to compare each figure with.")
	flag.BoolVar(&cfg.profile, "profile", true, "Take the operator's CPU profiles in each burst (false: to see what the profiler adds to its figures).")
	memoryLimit := flag.String("memory-limit", "", "The operator's container memory limit, such as 128Mi (default config/manager's).")
	flag.Parse()
	cfg.flags = flag.Args()
	if cfg.repeat < 1 {
		return cfg, fmt.Errorf("-repeat: %d is not a positive number", cfg.repeat)
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-n: %q is not a positive number", s)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	for _, name := range strings.Split(*names, ",") {
		i := slices.IndexFunc(kinds, func(k kind) bool { return strings.EqualFold(k.name, strings.TrimSpace(name)) })
		if i < 0 {
			return cfg, fmt.Errorf("-kinds: no kind %q", name)
		}
		cfg.kinds = append(cfg.kinds, kinds[i])
	}
	root, err := os.Getwd()
	if err != nil {
		return cfg, err
	}
	cfg.root = root
	if cfg.memoryLimit, err = parseMemoryLimit(root, *memoryLimit); err != nil {
		return cfg, err
	}
	if !filepath.IsAbs(cfg.cluster) {
		cfg.cluster = filepath.Join(root, cfg.cluster)
	}
	if cfg.out == "" {
		cfg.out = filepath.Join(root, "bin", "bench", time.Now().UTC().Format("20060102T150405Z")+".json")
	}
	return cfg, nil
}

// parseMemoryLimit reads the -memory-limit quantity, or config/manager's
// limit when it is empty.
func parseMemoryLimit(root, limit string) (int64, error) {
	if limit == "" {
		return inClusterMemoryLimit(root)
	}
	q, err := resource.ParseQuantity(limit)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("-memory-limit: %q is not a positive quantity such as 128Mi", limit)
	}
	return q.Value(), nil
}

func newClients() (*clients, string, error) {
	rest, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return nil, "", err
	}
	// No client-side rate limit: the baseline goes as fast as the API
	// server lets it, as the operator's client does.
	rest.QPS = -1
	c := &clients{}
	if c.dyn, err = dynamic.NewForConfig(rest); err != nil {
		return nil, "", err
	}
	if c.kube, err = kubernetes.NewForConfig(rest); err != nil {
		return nil, "", err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(rest)
	if err != nil {
		return nil, "", err
	}
	version, err := disco.ServerVersion()
	if err != nil {
		return nil, "", fmt.Errorf("reaching the cluster: %w", err)
	}
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	return c, version.GitVersion, nil
}

func bench(ctx context.Context, cfg config) error {
	c, kubeVersion, err := newClients()
	if err != nil {
		return err
	}
	c.pidDir = filepath.Join(cfg.cluster, "pids")
	if !cfg.allowBusy {
		if err := c.checkQuiet(ctx); err != nil {
			return err
		}
	}
	previous, err := loadRuns(cfg.previous)
	if err != nil {
		return err
	}
	report := newReport(cfg, kubeVersion)
	fmt.Printf("the operator's container memory limit: %.0f MiB\n", float64(cfg.memoryLimit)/mib)
	for _, n := range cfg.sizes {
		var runs []sizeResult
		for range cfg.repeat {
			result, err := c.benchSize(ctx, cfg, n)
			if err != nil {
				return fmt.Errorf("with %d of each kind: %w", n, err)
			}
			runs = append(runs, result)
			if err := result.print(os.Stdout, cfg.memoryLimit); err != nil {
				return err
			}
			if err := result.printPrevious(os.Stdout, previous); err != nil {
				return err
			}
		}
		report.Runs = append(report.Runs, runs...)
		if cfg.repeat > 1 {
			if err := printMedians(os.Stdout, runs); err != nil {
				return err
			}
		}
	}
	if err := printScaling(os.Stdout, report.Runs); err != nil {
		return err
	}
	if err := report.write(cfg.out); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s\n", cfg.out)
	return nil
}
