package cluster

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// A supervised process is started again after it exits, not at once but
// after the kubelet's first back-off (10 s), and the supervision stops,
// with its process, when it is asked to.
func TestSupervisedProcessRestartsAfterBackOff(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	ps := processes{pids: filepath.Join(dir, "pids"), logs: dir}
	g.Expect(os.MkdirAll(ps.pids, 0o755)).To(Succeed())
	runs := filepath.Join(dir, "runs")
	// It exits at once the first time, and runs until stopped the next.
	p := process{name: "flaky", binary: "sh", supervised: true, args: []string{"-c",
		`echo run >>"$0"; [ "$(wc -l <"$0")" -gt 1 ] && exec sleep 600; exit 3`, runs}}
	g.Expect(ps.start(p)).To(Succeed())
	t.Cleanup(func() { _ = ps.stop(p, 5*time.Second) })

	started := time.Now()
	g.Eventually(func() int { return ps.restarts(p) }).WithTimeout(5 * time.Second).Should(Equal(1))
	g.Expect(ps.pid(p)).NotTo(BeZero(), "the supervisor runs on")
	g.Consistently(func() string { return readFile(runs) }).WithTimeout(8*time.Second-time.Since(started)).
		Should(Equal("run\n"), "started again before its back-off")
	g.Eventually(func() string { return readFile(runs) }).WithTimeout(10 * time.Second).Should(Equal("run\nrun\n"))
	g.Expect(ps.restarts(p)).To(Equal(1), "the second run is still running")
	g.Expect(readFile(ps.log(p.name))).To(ContainSubstring("supervise: sh exited with 3"))

	g.Expect(ps.stop(p, 5*time.Second)).To(Succeed())
	g.Expect(ps.pid(p)).To(BeZero())
}

// readFile is the file's content, or "" when it cannot be read.
func readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}
