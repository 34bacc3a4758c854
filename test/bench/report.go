package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// report is what one run of the benchmark measured, and where.
type report struct {
	Date          string   `json:"date"`
	Commit        string   `json:"commit"`
	Machine       machine  `json:"machine"`
	Versions      versions `json:"versions"`
	Workers       int      `json:"workers"`
	OperatorFlags []string `json:"operatorFlags,omitempty"`
	// MemoryLimitBytes is the operator's container memory limit, of which
	// its Go runtime keeps to a share.
	MemoryLimitBytes int64 `json:"memoryLimitBytes,omitempty"`
	// Unprofiled runs took no CPU profiles of the operator, whose costs
	// are then not in its figures.
	Unprofiled bool         `json:"unprofiled,omitempty"`
	Runs       []sizeResult `json:"runs"`
}

type machine struct {
	Cores  int    `json:"cores"`
	Kernel string `json:"kernel"`
}

type versions struct {
	Go         string `json:"go"`
	Kubernetes string `json:"kubernetes"`
	Kwok       string `json:"kwok"`
}

// sizeResult is one run with N custom resources of each kind.
type sizeResult struct {
	N          int          `json:"n"`
	Kinds      []kindResult `json:"kinds"`
	Idle       idleResult   `json:"idle"`
	Memory     memoryResult `json:"memory"`
	CPUSeconds float64      `json:"cpuSeconds"`
	// Starvation is measured when the run has WebServers and Echoes.
	Starvation *starvationResult `json:"starvation,omitempty"`
}

// kind is the result of the kind named name in s, if s measured it.
func (s sizeResult) kind(name string) (kindResult, bool) {
	i := slices.IndexFunc(s.Kinds, func(k kindResult) bool { return k.Kind == name })
	if i < 0 {
		return kindResult{}, false
	}
	return s.Kinds[i], true
}

type kindResult struct {
	Kind     string      `json:"kind"`
	Baseline burstResult `json:"baseline"`
	// Floor is the baseline with the custom resources created too, and
	// no operator; FloorRatio its time over the baseline's, the least
	// ratio an operator of this custom resource could have.
	Floor      burstResult    `json:"floor"`
	FloorRatio float64        `json:"floorRatio"`
	Operator   operatorResult `json:"operator"`
	// Ratio is the operator's time to all Ready over the baseline's.
	Ratio float64 `json:"ratio"`
	// BaselineAfter is the baseline run again after the operator's bursts,
	// once their objects are gone; BaselineDrift its time over the first.
	BaselineAfter burstResult `json:"baselineAfter"`
	BaselineDrift float64     `json:"baselineDrift"`
	// Deletion is the deletion of the operator's burst's namespace.
	Deletion deletionResult `json:"deletion"`
}

// deletionResult is what the operator did while the namespace of a
// burst went: the namespace controller deletes the objects in any order,
// so the operator sees its objects go before their owners.
type deletionResult struct {
	// Seconds is from the namespace's deletion until it was gone.
	Seconds float64 `json:"seconds"`
	// RequestsPerCR are the operator's API requests by method, over N,
	// the renewals of its Lease aside; WritesPerCR the writes of them,
	// events (refused in a namespace being deleted) included.
	RequestsPerCR   map[string]float64 `json:"requestsPerCR,omitempty"`
	WritesPerCR     float64            `json:"writesPerCR"`
	ReconcilesPerCR float64            `json:"reconcilesPerCR"`
}

// driftLimit is how far the two baselines of a run may differ before the
// run says that its ratios cannot be trusted.
const driftLimit = 0.10

type operatorResult struct {
	burstResult
	// RequestsPerCR are the operator's API requests by method, over N,
	// the renewals of its Lease aside.
	RequestsPerCR map[string]float64 `json:"requestsPerCR"`
	// EventsPerCR are the events it recorded, over N; WritesPerCR its
	// other writes (POST, PUT, PATCH, DELETE), over N.
	EventsPerCR     float64 `json:"eventsPerCR"`
	WritesPerCR     float64 `json:"writesPerCR"`
	ReconcilesPerCR float64 `json:"reconcilesPerCR"`
	ReconcileErrors int     `json:"reconcileErrors"`
	CPUSeconds      float64 `json:"cpuSeconds"`
	RSSBytes        uint64  `json:"rssBytes"`
}

type idleResult struct {
	Seconds        float64 `json:"seconds"`
	Writes         int     `json:"writes"`
	Reconciles     int     `json:"reconciles"`
	ObjectsChanged int     `json:"objectsChanged"`
	// ChangedByResource are the objects changed by resource (events, jobs).
	ChangedByResource map[string]int `json:"changedByResource,omitempty"`
}

type memoryResult struct {
	PeakRSSBytes uint64 `json:"peakRSSBytes"`
	// RSSFileBytes are the pages of the binary in the RSS at the end.
	RSSFileBytes uint64 `json:"rssFileBytes"`
	// The heap's spans in use, before the first burst and at the end.
	HeapStartBytes uint64 `json:"heapStartBytes"`
	HeapEndBytes   uint64 `json:"heapEndBytes"`
	// The heap's live objects, at the same times.
	LiveStartBytes uint64 `json:"liveStartBytes"`
	LiveEndBytes   uint64 `json:"liveEndBytes"`
	// CachedObjects are the custom resources and owned objects the
	// operator's cache holds at the end.
	CachedObjects      int     `json:"cachedObjects"`
	HeapPerObjectBytes float64 `json:"heapPerObjectBytes"`
	LivePerObjectBytes float64 `json:"livePerObjectBytes"`
}

func newMemoryResult(proc procStats, start, end heapStats, cached int) memoryResult {
	perObject := func(start, end uint64) float64 {
		return (float64(end) - float64(start)) / float64(max(cached, 1))
	}
	return memoryResult{
		PeakRSSBytes: proc.peakRSS, RSSFileBytes: proc.rssFile,
		HeapStartBytes: start.inUse, HeapEndBytes: end.inUse,
		LiveStartBytes: start.live, LiveEndBytes: end.live,
		CachedObjects:      cached,
		HeapPerObjectBytes: perObject(start.inUse, end.inUse),
		LivePerObjectBytes: perObject(start.live, end.live),
	}
}

func newReport(cfg config, kubeVersion string) *report {
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return &report{
		Date:             time.Now().UTC().Format(time.RFC3339),
		Commit:           commit(cfg.root),
		Machine:          machine{Cores: runtime.NumCPU(), Kernel: strings.TrimSpace(string(kernel))},
		Versions:         versions{Go: runtime.Version(), Kubernetes: kubeVersion, Kwok: os.Getenv("KWOK_VERSION")},
		Workers:          cfg.workers,
		OperatorFlags:    cfg.flags,
		MemoryLimitBytes: cfg.memoryLimit,
		Unprofiled:       !cfg.profile,
	}
}

// commit is the checked-out commit, marked dirty when the tree differs.
func commit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if status, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); len(status) > 0 {
		c += "-dirty"
	}
	return c
}

func (r *report) write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

const mib = 1 << 20

// printer writes formatted text, and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// print prints s; limit is the operator's container memory limit, to
// which the peak RSS is compared.
func (s sizeResult) print(w io.Writer, limit int64) error {
	out := &printer{w: w}
	out.printf("\nN=%d\n", s.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	table := &printer{w: tw}
	table.printf("kind\traw s\traw+CR s\tfloor\toperator s\tratio\tp50 s\tp95 s\tp99 s\t" +
		"writes/CR\tevents/CR\trequests/CR\treconciles/CR\terrors\tCPU s\tRSS MiB\t\n")
	for _, k := range s.Kinds {
		o := k.Operator
		table.printf("%s\t%.1f\t%.1f\t%.2f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%d\t%.1f\t%.0f\t\n",
			k.Kind, k.Baseline.Seconds, k.Floor.Seconds, k.FloorRatio, o.Seconds, k.Ratio, o.P50, o.P95, o.P99, o.WritesPerCR, o.EventsPerCR,
			byMethod(o.RequestsPerCR), o.ReconcilesPerCR, o.ReconcileErrors, o.CPUSeconds, float64(o.RSSBytes)/mib)
	}
	if err := errors.Join(table.err, tw.Flush()); err != nil {
		return err
	}
	for _, k := range s.Kinds {
		out.printf("%s, control plane CPU s, raw / raw+CR / with the operator:%s; operator %.1f\n",
			k.Kind, cpuByProcess(k.Baseline.ControlPlaneCPU, k.Floor.ControlPlaneCPU, k.Operator.ControlPlaneCPU), k.Operator.CPUSeconds)
		out.printf("%s, raw s before and after the operator: %.1f, %.1f (%+.0f%%)%s\n", k.Kind, k.Baseline.Seconds,
			k.BaselineAfter.Seconds, (k.BaselineDrift-1)*100, driftWarning(k.BaselineDrift))
		d := k.Deletion
		out.printf("%s, the namespace deleted: gone in %.1f s; the operator meanwhile: %.2f writes/CR (%s), %.2f reconciles/CR\n",
			k.Kind, d.Seconds, d.WritesPerCR, byMethod(d.RequestsPerCR), d.ReconcilesPerCR)
	}
	m := s.Memory
	out.printf("idle %.0fs: %d writes, %d reconciles, %d objects changed%s\n",
		s.Idle.Seconds, s.Idle.Writes, s.Idle.Reconciles, s.Idle.ObjectsChanged, byResource(s.Idle.ChangedByResource))
	out.printf("memory: peak RSS %.1f MiB (the binary's pages %.1f MiB)%s; "+
		"heap %.1f -> %.1f MiB over %d cached objects: %.2f KiB each, of live objects %.2f KiB; CPU %.1f s\n",
		float64(m.PeakRSSBytes)/mib, float64(m.RSSFileBytes)/mib, margin(m.PeakRSSBytes, limit), float64(m.HeapStartBytes)/mib, float64(m.HeapEndBytes)/mib,
		m.CachedObjects, m.HeapPerObjectBytes/1024, m.LivePerObjectBytes/1024, s.CPUSeconds)
	if st := s.Starvation; st != nil {
		out.printf("%d WebServers while %d Echoes are created: all Ready in %.1f s, p50 %.2f s, p99 %.2f s; alone: %.1f s, p50 %.2f s, p99 %.2f s\n",
			st.WebServers, st.Echoes, st.During.Seconds, st.During.P50, st.During.P99, st.Alone.Seconds, st.Alone.P50, st.Alone.P99)
	}
	return out.err
}

// margin says how far under, or over, the container memory limit a peak
// RSS is.
func margin(peak uint64, limit int64) string {
	if limit <= 0 {
		return ""
	}
	left, side := float64(limit)-float64(peak), "under"
	if left < 0 {
		left, side = -left, "over"
	}
	return fmt.Sprintf(", %.1f MiB (%.0f%%) %s the container's limit of %.0f MiB", left/mib, 100*left/float64(limit), side, float64(limit)/mib)
}

// drifted tells whether the baseline moved past driftLimit in a run.
func drifted(drift float64) bool {
	return math.Abs(drift-1) > driftLimit
}

// driftWarning says, for a drift of the baseline past driftLimit, that
// the run's ratios are not to be trusted.
func driftWarning(drift float64) string {
	if !drifted(drift) {
		return ""
	}
	return fmt.Sprintf(": WARNING, more than %.0f%% apart: the cluster changed under the run, so its ratios are not to be trusted", driftLimit*100)
}

func byMethod(requests map[string]float64) string {
	parts := make([]string, 0, len(requests))
	for _, method := range slices.Sorted(maps.Keys(requests)) {
		parts = append(parts, fmt.Sprintf("%s %.2f", method, requests[method]))
	}
	return strings.Join(parts, ", ")
}

// cpuByProcess lists, for each control-plane process and for all of them,
// the CPU seconds it used in each burst.
func cpuByProcess(bursts ...map[string]float64) string {
	var b strings.Builder
	seconds := func(of func(map[string]float64) float64) string {
		figures := make([]string, len(bursts))
		for i, burst := range bursts {
			figures[i] = fmt.Sprintf("%.1f", of(burst))
		}
		return strings.Join(figures, " / ")
	}
	for _, name := range controlPlane {
		fmt.Fprintf(&b, " %s %s,", name, seconds(func(cpu map[string]float64) float64 { return cpu[name] }))
	}
	fmt.Fprintf(&b, " all %s", seconds(total))
	return b.String()
}

// total is the sum of the CPU seconds of every process.
func total(cpu map[string]float64) float64 {
	var all float64
	for _, seconds := range cpu {
		all += seconds
	}
	return all
}

func load(path string) (*report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &report{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return r, nil
}

// figure is one figure of a kind's results, by its printed name.
type figure struct {
	name string
	of   func(kindResult) float64
}

// kindFigures are the figures of a kind by which runs are compared.
var kindFigures = []figure{
	{"operator s", func(k kindResult) float64 { return k.Operator.Seconds }},
	{"ratio to raw", func(k kindResult) float64 { return k.Ratio }},
	{"floor (raw+CR to raw)", func(k kindResult) float64 { return k.FloorRatio }},
	{"p50 s", func(k kindResult) float64 { return k.Operator.P50 }},
	{"p99 s", func(k kindResult) float64 { return k.Operator.P99 }},
	{"writes/CR", func(k kindResult) float64 { return k.Operator.WritesPerCR }},
	{"events/CR", func(k kindResult) float64 { return k.Operator.EventsPerCR }},
	{"reconciles/CR", func(k kindResult) float64 { return k.Operator.ReconcilesPerCR }},
	{"operator CPU s", func(k kindResult) float64 { return k.Operator.CPUSeconds }},
	{"control plane CPU s", func(k kindResult) float64 { return total(k.Operator.ControlPlaneCPU) }},
	{"deletion s", func(k kindResult) float64 { return k.Deletion.Seconds }},
	{"deletion writes/CR", func(k kindResult) float64 { return k.Deletion.WritesPerCR }},
}

// compare prints, for each size and kind both reports have, the old and
// new figures and their ratio (new over old: below 1 is better).
func compare(w io.Writer, oldPath, newPath string) error {
	before, err := load(oldPath)
	if err != nil {
		return err
	}
	after, err := load(newPath)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "old %s (%s), new %s (%s)\n", before.Commit, before.Date, after.Commit, after.Date); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	table := &printer{w: tw}
	table.printf("N\tfigure\told\tnew\tnew/old\t\n")
	row := func(n int, figure string, old, new float64) {
		ratio := "-"
		if old != 0 {
			ratio = fmt.Sprintf("%.2f", new/old)
		}
		table.printf("%d\t%s\t%.2f\t%.2f\t%s\t\n", n, figure, old, new, ratio)
	}
	for _, a := range after.Runs {
		i := slices.IndexFunc(before.Runs, func(b sizeResult) bool { return b.N == a.N })
		if i < 0 {
			continue
		}
		b := before.Runs[i]
		for _, k := range a.Kinds {
			old, ok := b.kind(k.Kind)
			if !ok {
				continue
			}
			for _, f := range kindFigures {
				row(a.N, k.Kind+" "+f.name, f.of(old), f.of(k))
			}
		}
		row(a.N, "idle writes", float64(b.Idle.Writes), float64(a.Idle.Writes))
		row(a.N, "peak RSS MiB", float64(b.Memory.PeakRSSBytes)/mib, float64(a.Memory.PeakRSSBytes)/mib)
		row(a.N, "heap/object KiB", b.Memory.HeapPerObjectBytes/1024, a.Memory.HeapPerObjectBytes/1024)
		row(a.N, "live heap/object KiB", b.Memory.LivePerObjectBytes/1024, a.Memory.LivePerObjectBytes/1024)
		row(a.N, "CPU s", b.CPUSeconds, a.CPUSeconds)
	}
	return errors.Join(table.err, tw.Flush())
}

// byResource is " (events 3, jobs 1)" for counts by resource, or "" for none.
func byResource(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for _, resource := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", resource, counts[resource]))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
