package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

const (
	operatorNamespace = "seed-operator-system"
	// scraper is the ServiceAccount the benchmark reads the operator's
	// metrics as: the metrics are served to authorized clients only.
	scraper            = "seed-bench-scraper"
	clockTicksPerSec   = 100
	operatorStartLimit = 2 * time.Minute
)

// operator is the manager as a local process, under its ServiceAccount,
// with the flags it has in the cluster (config/manager), and pprof on
// loopback to read its heap.
type operator struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
	ports   struct{ probe, metrics, pprof int }
	token   string
	http    *http.Client
}

// inClusterFlags are config/manager's flags beside those that bind ports.
var inClusterFlags = []string{
	"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=35s", "--leader-elect-retry-period=2s",
}

// inClusterMemoryLimit is the manager container's memory limit in
// config/manager, in bytes, as the downward API gives it to the manager.
func inClusterMemoryLimit(root string) (int64, error) {
	path := filepath.Join(root, "config", "manager", "manager.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for doc := range strings.SplitSeq(string(data), "\n---") {
		d := &appsv1.Deployment{}
		if err := yaml.Unmarshal([]byte(doc), d); err != nil {
			return 0, fmt.Errorf("reading %s: %w", path, err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && c.Name == "manager" {
				return limit.Value(), nil
			}
		}
	}
	return 0, fmt.Errorf("%s has no memory limit for the manager container", path)
}

// install installs the CRDs and the operator's RBAC, and makes the custom
// resources known to the clients.
func (c *clients) install(ctx context.Context, root string) error {
	if err := run(ctx, root, filepath.Join(root, "hack", "operator.sh"), "install"); err != nil {
		return err
	}
	c.mapper.Reset()
	return nil
}

// startOperator starts the manager; install must have run.
func (c *clients) startOperator(ctx context.Context, cfg config, dir string, port int) (*operator, error) {
	token, err := testenv.MetricsReaderToken(ctx, c.kube, scraper)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &operator{logPath: filepath.Join(dir, "operator.log"), exited: make(chan struct{}), token: token}
	o.ports.probe, o.ports.metrics, o.ports.pprof = port, port+1, port+2
	// The metrics are served with the operator's self-signed certificate,
	// on loopback.
	o.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // a self-signed certificate on loopback
	}}
	log, err := os.Create(o.logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{"run", dir,
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", o.ports.probe),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", o.ports.metrics),
		fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", o.ports.pprof),
	}, inClusterFlags...)
	// hack/operator.sh execs the manager: this process is the manager.
	o.cmd = exec.Command(filepath.Join(cfg.root, "hack", "operator.sh"), append(args, cfg.flags...)...)
	o.cmd.Dir, o.cmd.Stdout, o.cmd.Stderr = cfg.root, log, log
	o.cmd.Env = append(os.Environ(), "MEMORY_LIMIT="+strconv.FormatInt(cfg.memoryLimit, 10))
	if err := o.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = o.cmd.Wait()
		_ = log.Close()
		close(o.exited)
	}()
	return o, o.awaitLeader(ctx)
}

// awaitLeader waits until the operator is ready and holds the lead, when
// its controllers run.
func (o *operator) awaitLeader(ctx context.Context) error {
	deadline := time.Now().Add(operatorStartLimit)
	for time.Now().Before(deadline) {
		select {
		case <-o.exited:
			return fmt.Errorf("the operator exited; see %s", o.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		m, err := o.metrics(ctx)
		if err == nil && m.Value("leader_election_master_status") == 1 {
			return nil
		}
	}
	return fmt.Errorf("the operator did not lead within %s; see %s", operatorStartLimit, o.logPath)
}

func (o *operator) stop() error {
	if o.cmd.Process == nil {
		return nil
	}
	_ = o.cmd.Process.Signal(os.Interrupt)
	select {
	case <-o.exited:
		return nil
	case <-time.After(time.Minute):
		_ = o.cmd.Process.Kill()
		return errors.New("the operator did not stop within a minute of SIGINT")
	}
}

func (o *operator) get(ctx context.Context, url string, bearer bool) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if bearer {
		req.Header.Set("Authorization", "Bearer "+o.token)
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), nil
}

func (o *operator) metrics(ctx context.Context) (testenv.Metrics, error) {
	body, err := o.get(ctx, fmt.Sprintf("https://127.0.0.1:%d/metrics", o.ports.metrics), true)
	if err != nil {
		return nil, err
	}
	return testenv.ParseMetrics(body)
}

// heapStats are the operator's heap figures right after a garbage
// collection: the bytes of its spans in use (HeapInuse, what the process
// holds for its heap) and of its live objects (HeapAlloc). The difference
// is the free room within those spans, left where objects died.
type heapStats struct {
	inUse, live uint64
}

func (o *operator) heap(ctx context.Context) (heapStats, error) {
	body, err := o.get(ctx, fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap?gc=1&debug=1", o.ports.pprof), false)
	if err != nil {
		return heapStats{}, err
	}
	return parseHeapStats(body)
}

// saveHeapProfile writes the operator's heap profile, after a garbage
// collection, to its directory, for `go tool pprof` to say what the live
// heap holds.
func (o *operator) saveHeapProfile(ctx context.Context) (string, error) {
	body, err := o.get(ctx, fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap?gc=1", o.ports.pprof), false)
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(o.logPath), "heap.pprof")
	return path, os.WriteFile(path, []byte(body), 0o644)
}

// profileBurst starts the CPU profiles of the operator and of the API
// server in a burst of n of kind, when on, says where they go, and
// returns what stops them. The API server's say what the operator's
// requests cost the cluster, which its own profiles cannot.
func (c *clients) profileBurst(ctx context.Context, o *operator, on bool, n int, kind string) (context.CancelFunc, error) {
	if !on {
		return func() {}, nil
	}
	ctx, stop := context.WithCancel(ctx)
	dir, name := filepath.Dir(o.logPath), "cpu-"+strings.ToLower(kind)
	for _, p := range []struct {
		who, name string
		fetch     fetchProfile
	}{
		{"the operator's", name, func(ctx context.Context, seconds int) (string, error) {
			return o.get(ctx, fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", o.ports.pprof, seconds), false)
		}},
		{"the API server's", "apiserver-" + name, func(ctx context.Context, seconds int) (string, error) {
			body, err := c.kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
				Param("seconds", strconv.Itoa(seconds)).DoRaw(ctx)
			return string(body), err
		}},
	} {
		profiles, err := profileCPU(ctx, dir, p.name, p.fetch)
		if err != nil {
			stop()
			return nil, err
		}
		fmt.Printf("N=%d %s: %s CPU profiles of the burst: go tool pprof -top %s\n", n, kind, p.who, profiles)
	}
	return stop, nil
}

// fetchProfile takes a CPU profile of the given number of seconds.
type fetchProfile func(ctx context.Context, seconds int) (string, error)

// cpuProfileSeconds is the length of each CPU profile profileCPU takes:
// short, since a burst's end cuts the last one off unsaved.
const cpuProfileSeconds = 5

// profileCPU saves the CPU profiles fetch takes, one after another, until
// ctx ends, as name-1.pprof, name-2.pprof and so on in dir, and returns
// their pattern for `go tool pprof`, which merges them.
func profileCPU(ctx context.Context, dir, name string, fetch fetchProfile) (string, error) {
	pattern := filepath.Join(dir, name+"-*.pprof")
	if err := removeAll(pattern); err != nil {
		return "", fmt.Errorf("removing an earlier run's CPU profiles: %w", err)
	}
	go func() {
		for i := 1; ctx.Err() == nil; i++ {
			body, err := fetch(ctx, cpuProfileSeconds)
			if err != nil {
				return
			}
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, i)), []byte(body), 0o644)
		}
	}()
	return pattern, nil
}

// removeAll removes the files pattern matches: an earlier, longer burst
// left more profiles than a run writes, which the pattern would merge
// into its own.
func removeAll(pattern string) error {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}

// parseHeapStats reads the runtime.MemStats that pprof's heap profile
// prints in its debug form.
func parseHeapStats(profile string) (heapStats, error) {
	var h heapStats
	figures := map[string]string{}
	for line := range strings.Lines(profile) {
		if name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "# "), " = "); ok {
			figures[name] = value
		}
	}
	return h, setFigures("the heap profile", figures, map[string]*uint64{"HeapInuse": &h.inUse, "HeapAlloc": &h.live}, 1)
}

// procStats are the operator's peak and current resident memory, of the
// latter the pages of its binary, in bytes, and the CPU time it has used,
// in seconds, from /proc.
type procStats struct {
	peakRSS, rss, rssFile uint64
	cpuSeconds            float64
}

func (o *operator) proc() (procStats, error) {
	dir := fmt.Sprintf("/proc/%d", o.cmd.Process.Pid)
	status, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return procStats{}, err
	}
	defer func() { _ = status.Close() }()
	s, err := parseProcStatus(status)
	if err != nil {
		return s, err
	}
	s.cpuSeconds, err = cpuSeconds(o.cmd.Process.Pid)
	return s, err
}

// parseProcStatus reads the memory lines of /proc/<pid>/status. RssFile
// is the binary's pages the process has mapped: the kernel can drop them
// and read them again, but they count in its RSS.
func parseProcStatus(r io.Reader) (procStats, error) {
	var s procStats
	figures := map[string]string{}
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		if line := strings.Fields(scanner.Text()); len(line) >= 2 {
			figures[line[0]] = line[1]
		}
	}
	if err := scanner.Err(); err != nil {
		return s, err
	}
	fields := map[string]*uint64{"VmHWM:": &s.peakRSS, "VmRSS:": &s.rss, "RssFile:": &s.rssFile}
	return s, setFigures("/proc's status", figures, fields, 1024)
}

// setFigures sets each field from the figure of its name, times unit, and
// names the figures the source lacks rather than leave them 0.
func setFigures(source string, figures map[string]string, fields map[string]*uint64, unit uint64) error {
	var missing []string
	for name, field := range fields {
		value, ok := figures[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return fmt.Errorf("%s's %s: %w", source, name, err)
		}
		*field = n * unit
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%s has no %s", source, strings.Join(missing, ", "))
	}
	return nil
}

func run(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	if out, err := cmd.Output(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
