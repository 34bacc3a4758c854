//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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
// ServiceAccount's token, as `make demo` runs it.
type replica struct {
	name      string
	cmd       *exec.Cmd
	logPath   string
	probePort int
	exited    chan struct{}
	// exitedAt is when the process ended, once exited is closed.
	exitedAt time.Time
}

// startReplica starts an operator process whose probes and metrics listen on
// loopback ports derived from port, with env added to its environment.
func startReplica(name string, port int, env ...string) *replica {
	// Absolute: hack/operator.sh resolves a relative folder from the
	// project's root, not from here.
	dir, err := filepath.Abs(filepath.Join(root, "bin", "e2e", name))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	r := &replica{name: name, logPath: filepath.Join(dir, "operator.log"), probePort: port, exited: make(chan struct{})}
	logFile, err := os.Create(r.logPath)
	Expect(err).NotTo(HaveOccurred())

	// hack/operator.sh execs the manager, so this process is the manager.
	r.cmd = exec.Command(filepath.Join(root, "hack", "operator.sh"), "run", dir,
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", port),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port+1),
	)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	r.cmd.Env = append(os.Environ(), env...)
	Expect(r.cmd.Start()).To(Succeed())
	go func() {
		_ = r.cmd.Wait()
		r.exitedAt = time.Now()
		_ = logFile.Close()
		close(r.exited)
	}()

	Eventually(func() error {
		if r.hasExited() {
			return StopTrying(fmt.Sprintf("operator %s exited:\n%s", name, r.tail()))
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	}).WithTimeout(60 * time.Second).Should(Succeed())
	return r
}

// isLeader tells whether this replica has taken the lead: the manager says
// so in its log, and the Lease cannot tell replicas on one host apart.
func (r *replica) isLeader() bool {
	return strings.Contains(r.log(), "Successfully acquired lease")
}

// kill ends the process at once, as a node failure or an OOM kill would:
// it has no chance to release the Lease.
func (r *replica) kill() {
	Expect(r.cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	Eventually(r.exited).WithTimeout(10 * time.Second).Should(BeClosed())
}

// hasExited tells whether the process has ended.
func (r *replica) hasExited() bool {
	select {
	case <-r.exited:
		return true
	default:
		return false
	}
}

// stop asks the process to stop, as Kubernetes asks a pod.
func (r *replica) stop() {
	if r.hasExited() {
		return
	}
	Expect(r.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
	Eventually(r.exited).WithTimeout(40 * time.Second).Should(BeClosed())
}

// log is what the replica has logged so far.
func (r *replica) log() string {
	data, _ := os.ReadFile(r.logPath)
	return string(data)
}

// tail is the end of the replica's log, for failure messages.
func (r *replica) tail() string {
	lines := strings.Split(strings.TrimSpace(r.log()), "\n")
	return strings.Join(lines[max(0, len(lines)-40):], "\n")
}

// leaseHolder is the identity holding the leader election Lease, "" when
// none does.
func leaseHolder(ctx context.Context, g Gomega, namespace string) string {
	lease := &coordinationv1.Lease{}
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, lease)
	g.Expect(client.IgnoreNotFound(err)).To(Succeed())
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}
