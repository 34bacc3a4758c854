package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestPercentile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name   string
		values []float64
		p      int
		want   float64
	}{
		{name: "none", values: nil, p: 50, want: 0},
		{name: "one", values: []float64{7}, p: 99, want: 7},
		{name: "median of ten", values: sorted, p: 50, want: 5},
		{name: "p95 of ten is the tenth", values: sorted, p: 95, want: 10},
		{name: "p1 is the first", values: sorted, p: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(percentile(tt.values, tt.p)).To(Equal(tt.want))
		})
	}
}

func TestRequests(t *testing.T) {
	g := NewWithT(t)
	scrape := func(text string) testenv.Metrics {
		m, err := testenv.ParseMetrics(text)
		g.Expect(err).NotTo(HaveOccurred())
		return m
	}
	const header = "# TYPE rest_client_requests_total counter\n"
	before := snapshot{renewals: 10, metrics: scrape(header +
		`rest_client_requests_total{code="200",host="h",method="GET"} 5` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PUT"} 10` + "\n")}
	after := snapshot{renewals: 25, metrics: scrape(header +
		`rest_client_requests_total{code="200",host="h",method="GET"} 5` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PUT"} 26` + "\n" +
		`rest_client_requests_total{code="201",host="h",method="PATCH"} 3` + "\n" +
		`rest_client_requests_total{code="200",host="h",method="PATCH"} 4` + "\n" +
		`rest_client_requests_total{code="201",host="h",method="POST"} 2` + "\n")}

	got := requests(before, after)
	g.Expect(got).To(Equal(map[string]float64{"PUT": 1, "PATCH": 7, "POST": 2}),
		"15 renewals are not the operator's work; methods with no request are left out")
	g.Expect(writes(got)).To(Equal(10.0))
}

func TestControlPlaneCPU(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	self := []byte(strconv.Itoa(os.Getpid()) + "\n")
	for _, name := range controlPlane[1:] {
		g.Expect(os.WriteFile(filepath.Join(dir, name), self, 0o600)).To(Succeed())
	}
	_, err := controlPlaneCPU(dir)
	g.Expect(err).To(MatchError(ContainSubstring("the local cluster's kube-apiserver")),
		"a process without a pid file is an error, not 0 s")

	g.Expect(os.WriteFile(filepath.Join(dir, controlPlane[0]), self, 0o600)).To(Succeed())
	// Read this process's CPU time until it has used a tick: the reading
	// spends it.
	var spent float64
	for deadline := time.Now().Add(5 * time.Second); spent == 0 && time.Now().Before(deadline); {
		spent, err = cpuSeconds(os.Getpid())
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(spent).To(BeNumerically(">", 0))
	used, err := controlPlaneCPU(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(used).To(HaveLen(len(controlPlane)))
	g.Expect(used).To(HaveKeyWithValue("etcd", BeNumerically(">=", spent)), "at least what was read before")

	_, err = cpuSeconds(1 << 30)
	g.Expect(err).To(HaveOccurred(), "no such process")
}

func TestTreeCPUSeconds(t *testing.T) {
	g := NewWithT(t)
	// A supervisor that spends nothing itself: its child spins, then
	// sleeps, as a program a supervisor restarts would run.
	supervisor := exec.Command("sh", "-c", `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 30' & wait`)
	supervisor.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	g.Expect(supervisor.Start()).To(Succeed())
	t.Cleanup(func() {
		_ = syscall.Kill(-supervisor.Process.Pid, syscall.SIGKILL)
		_ = supervisor.Wait()
	})
	pid := supervisor.Process.Pid
	treeCPUSeconds := func(pid int) (float64, error) {
		processes, err := listProcesses()
		if err != nil {
			return 0, err
		}
		return processes.treeCPUSeconds(pid)
	}
	g.Eventually(func() (float64, error) { return treeCPUSeconds(pid) }).WithTimeout(20*time.Second).
		Should(BeNumerically(">=", 0.1), "the child's spinning counts")
	own, err := cpuSeconds(pid)
	g.Expect(err).NotTo(HaveOccurred())
	tree, err := treeCPUSeconds(pid)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(own).To(BeNumerically("<", tree/2), "the supervisor's own time is not what its child spent")

	_, err = treeCPUSeconds(1 << 30)
	g.Expect(err).To(HaveOccurred(), "no such process")
}

func TestCPUSpent(t *testing.T) {
	g := NewWithT(t)
	spent := cpuSpent(map[string]float64{"etcd": 1.5, "kwok": 2}, map[string]float64{"etcd": 4, "kwok": 2, "kube-apiserver": 3})
	g.Expect(spent).To(Equal(map[string]float64{"etcd": 2.5, "kwok": 0, "kube-apiserver": 3}),
		"a process the first reading lacks counts from 0")
	g.Expect(total(spent)).To(Equal(5.5))
	g.Expect(cpuByProcess(map[string]float64{"etcd": 1}, spent)).To(Equal(
		" kube-apiserver 0.0 / 3.0, etcd 1.0 / 2.5, kube-controller-manager 0.0 / 0.0, kube-scheduler 0.0 / 0.0, kwok 0.0 / 0.0, all 1.0 / 5.5"))
}

func TestCPUByProcessOfThreeBursts(t *testing.T) {
	NewWithT(t).Expect(cpuByProcess(map[string]float64{"etcd": 1}, map[string]float64{"kwok": 2}, map[string]float64{"etcd": 3})).To(Equal(
		" kube-apiserver 0.0 / 0.0 / 0.0, etcd 1.0 / 0.0 / 3.0, kube-controller-manager 0.0 / 0.0 / 0.0, kube-scheduler 0.0 / 0.0 / 0.0, kwok 0.0 / 2.0 / 0.0, all 1.0 / 2.0 / 3.0"))
}

func TestWithCustomResource(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			g := NewWithT(t)
			floor := k.withCustomResource()
			baseline := k.baseline.objects(7)
			g.Expect(floor.tracked).To(Equal(k.baseline.tracked), "the baseline's objects are waited for")
			g.Expect(floor.objects(7)).To(Equal(append(baseline, k.operator.objects(7)[0])),
				"the baseline's objects, then the custom resource")
		})
	}
}

func TestParseHeapStats(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		want    heapStats
		wantErr string
	}{
		{
			name:    "the MemStats at the end of a heap profile",
			profile: "heap profile: 1: 2 [3: 4] @ heap/1048576\n\n# runtime.MemStats\n# Alloc = 29965192\n# HeapAlloc = 29965192\n# HeapInuse = 49487872\n# HeapObjects = 279046\n",
			want:    heapStats{inUse: 49487872, live: 29965192},
		},
		{name: "no MemStats", profile: "heap profile: 1: 2 [3: 4] @ heap/1048576\n", wantErr: "no HeapAlloc, HeapInuse"},
		{name: "a figure that is not a number", profile: "# HeapAlloc = many\n# HeapInuse = 1\n", wantErr: "HeapAlloc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := parseHeapStats(tt.profile)
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestParseProcStatus(t *testing.T) {
	g := NewWithT(t)
	status := "Name:\tmanager\nVmHWM:\t  149824 kB\nVmRSS:\t   64548 kB\nRssAnon:\t   21188 kB\nRssFile:\t   43360 kB\nThreads:\t12\n"
	got, err := parseProcStatus(strings.NewReader(status))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(procStats{peakRSS: 149824 << 10, rss: 64548 << 10, rssFile: 43360 << 10}))

	_, err = parseProcStatus(strings.NewReader("VmHWM:\t1 kB\nVmRSS:\t1 kB\n"))
	g.Expect(err).To(MatchError(ContainSubstring("no RssFile")), "a kernel without the split says so, not 0")
}

func TestNewMemoryResult(t *testing.T) {
	g := NewWithT(t)
	got := newMemoryResult(procStats{peakRSS: 100 << 20, rssFile: 40 << 20},
		heapStats{inUse: 10 << 20, live: 8 << 20}, heapStats{inUse: 50 << 20, live: 28 << 20}, 4000)
	g.Expect(got.HeapPerObjectBytes).To(BeNumerically("~", 10485.76))
	g.Expect(got.LivePerObjectBytes).To(BeNumerically("~", 5242.88))
	g.Expect(got.RSSFileBytes).To(Equal(uint64(40 << 20)))
	g.Expect(newMemoryResult(procStats{}, heapStats{}, heapStats{live: 1024}, 0).LivePerObjectBytes).To(Equal(1024.0),
		"no cached objects divides by one, not by zero")
}

func TestMemoryLimit(t *testing.T) {
	g := NewWithT(t)
	manifest := func(limits string) string {
		root := t.TempDir()
		g.Expect(os.MkdirAll(filepath.Join(root, "config", "manager"), 0o755)).To(Succeed())
		g.Expect(os.WriteFile(filepath.Join(root, "config", "manager", "manager.yaml"), []byte(`apiVersion: v1
kind: Namespace
metadata: {name: system}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: controller-manager}
spec:
  template:
    spec:
      containers:
      - name: manager
        resources: {limits: {`+limits+`}}
`), 0o644)).To(Succeed())
		return root
	}

	limit, err := inClusterMemoryLimit(manifest("cpu: 500m, memory: 256Mi"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(limit).To(BeEquivalentTo(256 << 20))

	_, err = inClusterMemoryLimit(manifest("cpu: 500m"))
	g.Expect(err).To(MatchError(ContainSubstring("no memory limit for the manager container")))

	_, err = inClusterMemoryLimit(filepath.Join("..", ".."))
	g.Expect(err).NotTo(HaveOccurred(), "config/manager's manager has a memory limit")

	// -memory-limit replaces config/manager's.
	limit, err = parseMemoryLimit(manifest("memory: 256Mi"), "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(limit).To(BeEquivalentTo(256 << 20))
	limit, err = parseMemoryLimit(manifest("memory: 256Mi"), "96Mi")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(limit).To(BeEquivalentTo(96 << 20))
	for _, bad := range []string{"lots", "0", "-1Mi"} {
		_, err = parseMemoryLimit(manifest("memory: 256Mi"), bad)
		g.Expect(err).To(MatchError(ContainSubstring("is not a positive quantity")), bad)
	}
}

func TestByResource(t *testing.T) {
	for _, tc := range []struct {
		counts map[string]int
		want   string
	}{
		{counts: nil, want: ""},
		{counts: map[string]int{"jobs": 1, "events": 3}, want: " (events 3, jobs 1)"},
	} {
		if got := byResource(tc.counts); got != tc.want {
			t.Errorf("byResource(%v) = %q, want %q", tc.counts, got, tc.want)
		}
	}
}

func TestBusy(t *testing.T) {
	g := NewWithT(t)
	g.Expect(busy(nil)).To(Succeed())
	g.Expect(busy(map[string]map[string]int{"default": {"pods": 3, "services": 1}, "team": {"deployments": busyLimit}})).To(Succeed(),
		"a few objects, and a namespace at the limit")
	err := busy(map[string]map[string]int{
		"default": {"pods": 3},
		"peer":    {"deployments": 1000, "services": 1000},
		"old":     {"jobs": busyLimit, "pods": 1},
	})
	g.Expect(err).To(MatchError(And(
		ContainSubstring("old (jobs 100, pods 1); peer (deployments 1000, services 1000)"),
		Not(ContainSubstring("default")), ContainSubstring("-allow-busy"))))
}

func TestDriftWarning(t *testing.T) {
	g := NewWithT(t)
	g.Expect(driftWarning(1)).To(BeEmpty())
	g.Expect(driftWarning(1.09)).To(BeEmpty(), "within the limit")
	g.Expect(driftWarning(0.92)).To(BeEmpty())
	g.Expect(driftWarning(1.11)).To(ContainSubstring("WARNING"))
	g.Expect(driftWarning(0.5)).To(ContainSubstring("not to be trusted"))
}

func TestPreviousOf(t *testing.T) {
	g := NewWithT(t)
	run := func(file, date string, n int, kinds ...string) committedRun {
		size := sizeResult{N: n}
		for _, k := range kinds {
			size.Kinds = append(size.Kinds, kindResult{Kind: k, Ratio: float64(len(file))})
		}
		return committedRun{file: file, report: &report{Date: date, Runs: []sizeResult{size}}}
	}
	// A run of three at N=1000: ratios 3, 1 and 2.
	repeated := run("repeated.json", "2026-04-01T00:00:00Z", 1000, "Echo")
	for _, ratio := range []float64{1, 2} {
		repeated.report.Runs = append(repeated.report.Runs, sizeResult{N: 1000, Kinds: []kindResult{{Kind: "Echo", Ratio: ratio}}})
	}
	repeated.report.Runs[0].Kinds[0].Ratio = 3
	runs := []committedRun{
		run("old.json", "2026-01-01T00:00:00Z", 1000, "WebServer", "Echo"),
		run("newer.json", "2026-02-01T00:00:00Z", 1000, "Echo"),
		run("small.json", "2026-03-01T00:00:00Z", 100, "WebServer"),
	}
	found, olds, ok := previousOf(runs, 1000, "WebServer")
	g.Expect(ok).To(BeTrue())
	g.Expect(found.file).To(Equal("old.json"), "the newest with the kind at that size")
	g.Expect(olds).To(HaveLen(1))
	found, _, _ = previousOf(runs, 1000, "Echo")
	g.Expect(found.file).To(Equal("newer.json"))
	_, _, ok = previousOf(runs, 5000, "Echo")
	g.Expect(ok).To(BeFalse())

	var out strings.Builder
	g.Expect(sizeResult{N: 1000, Kinds: []kindResult{{Kind: "WebServer", Ratio: 4}, {Kind: "DemoVolume"}}}.printPrevious(&out, runs)).To(Succeed())
	g.Expect(out.String()).To(And(
		ContainSubstring("WebServer, against old.json (, 2026-01-01T00:00:00Z): "), ContainSubstring("ratio to raw 8.00 -> 4.00 (x0.50)"),
		ContainSubstring("operator s 0.00 -> 0.00 (-)"), ContainSubstring("DemoVolume: no committed run of N=1000")))

	// Against a run of three, each figure's median, not the first run's.
	out.Reset()
	g.Expect(sizeResult{N: 1000, Kinds: []kindResult{{Kind: "Echo", Ratio: 4}}}.printPrevious(&out, slices.Concat(runs, []committedRun{repeated}))).To(Succeed())
	g.Expect(out.String()).To(And(
		ContainSubstring("Echo, against repeated.json (, 2026-04-01T00:00:00Z, the median of 3 runs): "),
		ContainSubstring("ratio to raw 2.00 -> 4.00 (x2.00)")))
}

func TestCommittedRunsLoad(t *testing.T) {
	g := NewWithT(t)
	runs, err := loadRuns(filepath.Join("results"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(runs).NotTo(BeEmpty())
	g.Expect(slices.IsSortedFunc(runs, func(a, b committedRun) int { return strings.Compare(a.report.Date, b.report.Date) })).To(BeTrue())
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{name: "none", values: nil, want: 0},
		{name: "one", values: []float64{7}, want: 7},
		{name: "three, unsorted", values: []float64{9, 1, 4}, want: 4},
		{name: "four: the mean of the middle two", values: []float64{4, 1, 3, 10}, want: 3.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(median(tt.values)).To(Equal(tt.want))
		})
	}
}

// Three runs print each figure's median and spread, and count the runs
// whose baselines moved, kind by kind.
func TestPrintMedians(t *testing.T) {
	g := NewWithT(t)
	run := func(cpu, ratio, drift float64, rss uint64) sizeResult {
		return sizeResult{N: 1000, Memory: memoryResult{PeakRSSBytes: rss * mib}, Kinds: []kindResult{{
			Kind: "WebServer", Ratio: ratio, BaselineDrift: drift,
			Operator: operatorResult{CPUSeconds: cpu, WritesPerCR: 4},
		}}}
	}
	var out strings.Builder
	g.Expect(printMedians(&out, []sizeResult{run(14.5, 1.65, 1.5, 78), run(14.1, 1.30, 1.02, 77), run(15.0, 1.40, 0.95, 80)})).To(Succeed())
	g.Expect(out.String()).To(ContainSubstring("N=1000, the median of 3 runs [lowest, highest]"))
	g.Expect(out.String()).To(ContainSubstring("ratio to raw 1.40 [1.30, 1.65]"))
	g.Expect(out.String()).To(ContainSubstring("operator CPU s 14.50 [14.10, 15.00]"))
	g.Expect(out.String()).To(ContainSubstring("writes/CR 4.00 [4.00, 4.00]"))
	g.Expect(out.String()).To(ContainSubstring("1 of 3 runs' raw baselines more than 10% apart"))
	g.Expect(out.String()).To(ContainSubstring("peak RSS MiB 78.0 [77.0, 80.0]"))
}

func TestRemoveAllOfAnEarlierRun(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, name := range []string{"cpu-webserver-1.pprof", "cpu-webserver-24.pprof", "cpu-echo-1.pprof", "heap.pprof"} {
		g.Expect(os.WriteFile(filepath.Join(dir, name), nil, 0o644)).To(Succeed())
	}
	g.Expect(removeAll(filepath.Join(dir, "cpu-webserver-*.pprof"))).To(Succeed())
	left, err := filepath.Glob(filepath.Join(dir, "*"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(left).To(ConsistOf(filepath.Join(dir, "cpu-echo-1.pprof"), filepath.Join(dir, "heap.pprof")))
}

func TestMargin(t *testing.T) {
	tests := []struct {
		name  string
		peak  uint64
		limit int64
		want  string
	}{
		{name: "no limit known", peak: 80 * mib, limit: 0, want: ""},
		{name: "under", peak: 64 * mib, limit: 256 * mib, want: ", 192.0 MiB (75%) under the container's limit of 256 MiB"},
		{name: "over", peak: 280 * mib, limit: 256 * mib, want: ", 24.0 MiB (9%) over the container's limit of 256 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(margin(tt.peak, tt.limit)).To(Equal(tt.want))
		})
	}
}

// A run of two sizes prints each kind's seconds per 1,000 resources at
// each, against the smaller size's, the medians where a size ran twice.
func TestPrintScaling(t *testing.T) {
	run := func(n int, operator, raw, floor float64) sizeResult {
		return sizeResult{N: n, Kinds: []kindResult{{
			Kind: "WebServer", Baseline: burstResult{Seconds: raw}, Floor: burstResult{Seconds: floor},
			Operator: operatorResult{burstResult: burstResult{Seconds: operator}},
		}}}
	}
	tests := []struct {
		name string
		runs []sizeResult
		want string
	}{
		{name: "one size: nothing to compare", runs: []sizeResult{run(1000, 90, 60, 70), run(1000, 80, 60, 70)}, want: ""},
		{
			name: "two sizes, the smaller first",
			runs: []sizeResult{run(1000, 90, 60, 70), run(5000, 495, 330, 350)},
			want: "\nseconds per 1,000 resources, N=1000 / N=5000 (each against N=1000's):\n" +
				"  WebServer: operator 90.0 / 99.0 (x1.10); raw 60.0 / 66.0 (x1.10); raw+CR 70.0 / 70.0 (x1.00)\n",
		},
		{
			name: "the larger first, the smaller twice",
			runs: []sizeResult{run(5000, 400, 300, 350), run(1000, 70, 60, 70), run(1000, 90, 60, 70)},
			want: "\nseconds per 1,000 resources, N=1000 / N=5000 (each against N=1000's):\n" +
				"  WebServer: operator 80.0 / 80.0 (x1.00); raw 60.0 / 60.0 (x1.00); raw+CR 70.0 / 70.0 (x1.00)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			g := NewWithT(t)
			g.Expect(printScaling(&out, tt.runs)).To(Succeed())
			g.Expect(out.String()).To(Equal(tt.want))
		})
	}
}
