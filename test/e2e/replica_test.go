//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	operatorNamespace = "seed-operator-system"
	// leaseName is the manager's LeaderElectionID.
	leaseName = "seed-operator.seed.example.com"
)

// replica is one operator process, run by hack/operator.sh with its
// ServiceAccount's token, as `make demo` runs it, under the cluster's
// supervise.sh: when the manager exits (a lost lease, a kill), it is
// started again with the kubelet's restart back-off, as a pod's container
// would be. Its log holds every run's, each ended by the supervisor's line.
type replica struct {
	name      string
	cmd       *exec.Cmd
	logPath   string
	probePort int
	// stopped is closed once the supervisor has ended.
	stopped chan struct{}
	// lost is when lose killed the replica, or zero.
	lost time.Time
}

// supervisorLine ends a run in a replica's log: supervise.sh's, with the
// time of the exit in seconds since the epoch.
var supervisorLine = regexp.MustCompile(`(?m)^supervise: .* exited with \d+ at (\d+\.\d+) after .*$`)

// startReplica starts an operator process whose probes and metrics listen on
// loopback ports derived from port, with env added to its environment.
func startReplica(name string, port int, env ...string) *replica {
	// Absolute: hack/operator.sh resolves a relative folder from the
	// project's root, not from here.
	dir, err := filepath.Abs(filepath.Join(root, "bin", "e2e", name))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	r := &replica{name: name, logPath: filepath.Join(dir, "operator.log"), probePort: port, stopped: make(chan struct{})}
	logFile, err := os.Create(r.logPath)
	Expect(err).NotTo(HaveOccurred())

	// hack/operator.sh execs the manager, so the supervisor's child is
	// the manager.
	r.cmd = exec.Command("bash", filepath.Join(root, "test", "cluster", "supervise.sh"), filepath.Join(dir, "restarts"),
		filepath.Join(root, "hack", "operator.sh"), "run", dir,
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", port),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port+1),
		// For expectOneLeaderAtATime.
		"--zap-time-encoding=rfc3339nano",
	)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	// Its name is its identity on the Lease, as a pod's name is.
	r.cmd.Env = append(append(os.Environ(), "POD_NAME="+name), env...)
	Expect(r.cmd.Start()).To(Succeed())
	go func() {
		_ = r.cmd.Wait()
		_ = logFile.Close()
		close(r.stopped)
	}()
	r.expectReady()
	return r
}

// expectReady waits until the replica's current run answers its readiness
// probe.
func (r *replica) expectReady() {
	GinkgoHelper()
	Eventually(func() error {
		if r.isStopped() {
			return StopTrying(fmt.Sprintf("operator %s stopped:\n%s", r.name, r.tail()))
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", r.probePort))
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	}).WithTimeout(60*time.Second).Should(Succeed(), "operator %s:\n%s", r.name, r.tail())
}

// exits are the times the replica's manager exited, one for each run
// that ended, as its supervisor logged them.
func (r *replica) exits() []time.Time {
	runs := r.runs()
	exits := make([]time.Time, 0, len(runs)-1)
	for _, run := range runs[:len(runs)-1] {
		exits = append(exits, run.ended)
	}
	return exits
}

// runs are the replica's runs, the current one last.
func (r *replica) runs() []run {
	log := r.log()
	var runs []run
	from := 0
	for _, end := range supervisorLine.FindAllStringSubmatchIndex(log, -1) {
		seconds, err := strconv.ParseFloat(log[end[2]:end[3]], 64)
		Expect(err).NotTo(HaveOccurred())
		runs = append(runs, run{acquired: acquiredAt(log[from:end[0]]), ended: time.Unix(0, int64(seconds*float64(time.Second)))})
		from = end[1]
	}
	return append(runs, run{acquired: acquiredAt(log[from:]), ended: r.lost})
}

// run is one run of a replica's manager: when it took the lead (zero if
// it never did) and when it exited (zero if it has not, or was stopped on
// purpose).
type run struct {
	acquired, ended time.Time
}

// acquiredAt is when the manager whose log is log took the lead, or zero
// if it did not. The Lease cannot tell replicas on one host apart.
func acquiredAt(log string) time.Time {
	if times := logged(log, "Successfully acquired lease"); times != nil {
		return times[0]
	}
	return time.Time{}
}

// logged are the times at which log has msg logged (to the nanosecond:
// startReplica asks for it).
func logged(log, msg string) []time.Time {
	var times []time.Time
	quoted, err := json.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `"msg":`+string(quoted)) {
			continue
		}
		var entry struct {
			TS time.Time `json:"ts"`
		}
		Expect(json.Unmarshal([]byte(line), &entry)).To(Succeed(), "the log line %q", line)
		times = append(times, entry.TS)
	}
	return times
}

// lastLogged is the last time any running replica logged msg since since,
// or zero if none did.
func lastLogged(msg string, since time.Time) time.Time {
	var last time.Time
	for _, r := range replicas {
		for _, t := range logged(r.log(), msg) {
			if t.After(since) && t.After(last) {
				last = t
			}
		}
	}
	return last
}

// isLeader tells whether the replica's current run has taken the lead.
func (r *replica) isLeader() bool {
	runs := r.runs()
	return !runs[len(runs)-1].acquired.IsZero()
}

// managerPID is the pid of the replica's manager, 0 while it is not
// running (between two runs). Between two runs the supervisor's child is
// the sleep of its restart back-off, which is no manager: a CI run killed
// one, cutting the back-off short and waiting for an exit in vain.
func (r *replica) managerPID() int {
	supervisor := r.cmd.Process.Pid
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", supervisor, supervisor))
	if err != nil {
		return 0
	}
	for _, field := range strings.Fields(string(children)) {
		pid, err := strconv.Atoi(field)
		Expect(err).NotTo(HaveOccurred())
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(comm)) != "sleep" {
			return pid
		}
	}
	return 0
}

// kill ends the manager at once, as a node failure or an OOM kill would:
// it has no chance to release the Lease. Its supervisor starts it again at
// once, as the kubelet restarts a container the first time. kill returns
// when the manager exited.
func (r *replica) kill() time.Time {
	GinkgoHelper()
	runs := len(r.exits())
	pid := r.managerPID()
	Expect(pid).NotTo(BeZero(), "replica %s runs no manager", r.name)
	Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
	Eventually(func() int { return len(r.exits()) }).WithTimeout(10 * time.Second).Should(BeNumerically(">", runs))
	return r.exits()[runs]
}

// expectNoExitSince checks that no replica's manager exited since exits
// (exitCount) were counted.
func expectNoExitSince(exits int) {
	GinkgoHelper()
	if n := exitCount(); n != exits {
		tails := make([]string, 0, len(replicas))
		for _, r := range replicas {
			tails = append(tails, r.name+":\n"+r.tail())
		}
		Fail(fmt.Sprintf("%d replica runs exited:\n%s", n-exits, strings.Join(tails, "\n")))
	}
}

// exitCount is how many times the running replicas' managers exited.
func exitCount() int {
	n := 0
	for _, r := range replicas {
		n += len(r.exits())
	}
	return n
}

// isStopped tells whether the replica was stopped.
func (r *replica) isStopped() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

// lose ends the replica as a lost node would end its pod: the manager
// killed, with no chance to release the Lease, and nothing to start it
// again. It returns when the manager was killed.
func (r *replica) lose() time.Time {
	GinkgoHelper()
	pid := r.managerPID()
	Expect(pid).NotTo(BeZero(), "replica %s runs no manager", r.name)
	// The supervisor first, so that it does not start the manager again.
	Expect(r.cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	Eventually(r.stopped).WithTimeout(10 * time.Second).Should(BeClosed())
	Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
	r.lost = time.Now()
	return r.lost
}

// stop asks the manager to stop, as Kubernetes asks a pod, and ends the
// supervision.
func (r *replica) stop() {
	if r.isStopped() {
		return
	}
	Expect(r.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
	Eventually(r.stopped).WithTimeout(40 * time.Second).Should(BeClosed())
}

// log is what the replica has logged so far.
func (r *replica) log() string {
	data, _ := os.ReadFile(r.logPath)
	return string(data)
}

// tail is the end of the replica's log, for failure messages.
func (r *replica) tail() string {
	return tailOf(r.log())
}

// tailOf is the end of a log.
func tailOf(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	return strings.Join(lines[max(0, len(lines)-40):], "\n")
}

// replicaDirs are the folders of every replica this run started, with
// their logs, whatever process started them.
const replicaDirs = root + "/bin/e2e/replica-*"

// replicaTails are the ends of the logs of every replica this run started,
// by name: from their files, as only the suite's first process has the
// replicas.
func replicaTails() map[string]string {
	dirs, _ := filepath.Glob(replicaDirs)
	tails := make(map[string]string, len(dirs))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "operator.log"))
		if err != nil {
			continue
		}
		tails[filepath.Base(dir)] = tailOf(string(data))
	}
	return tails
}

// removeReplicaLogs removes the folders of an earlier run's replicas.
func removeReplicaLogs() error {
	dirs, err := filepath.Glob(replicaDirs)
	for _, dir := range dirs {
		err = errors.Join(err, os.RemoveAll(dir))
	}
	return err
}

// expectOneLeaderAtATime checks that no two runs of the operator, of all
// the replicas this suite started, led at once: each run that took the
// lead exited before the next one took it. A leader that cannot renew
// stops leading when it exits, and its restart is a new run, which takes
// the Lease again as the same identity. The last run of a replica stopped
// on purpose is left out: it released the Lease before it exited.
func expectOneLeaderAtATime() {
	GinkgoHelper()
	type term struct {
		run
		name string
	}
	var terms []term
	for _, r := range started {
		runs := r.runs()
		if r.isStopped() && r.lost.IsZero() {
			runs = runs[:len(runs)-1]
		}
		for i, run := range runs {
			if !run.acquired.IsZero() {
				terms = append(terms, term{run, fmt.Sprintf("%s run %d", r.name, i)})
			}
		}
	}
	slices.SortFunc(terms, func(a, b term) int { return a.acquired.Compare(b.acquired) })
	for i := 1; i < len(terms); i++ {
		prev, next := terms[i-1], terms[i]
		Expect(prev.ended.IsZero()).To(BeFalse(), "%s still leads while %s took the lead at %s",
			prev.name, next.name, next.acquired.Format(time.StampMicro))
		Expect(prev.ended).To(BeTemporally("<", next.acquired), "%s led until %s, after %s took the lead at %s",
			prev.name, prev.ended.Format(time.StampMicro), next.name, next.acquired.Format(time.StampMicro))
	}
}

// leaseHolder is the identity holding the leader election Lease, "" when
// none does.
func leaseHolder(ctx context.Context, g Gomega, namespace string) string {
	lease := &coordinationv1.Lease{}
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, lease)
	g.Expect(client.IgnoreNotFound(err)).To(Succeed())
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}
