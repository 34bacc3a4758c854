package cluster

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// A supervised process is started again after it exits, as the kubelet
// restarts a container: at once the first time, after 10 s the next, and
// the supervision stops, with its process, when it is asked to.
func TestSupervisedProcessRestartsAfterBackOff(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	ps := processes{pids: filepath.Join(dir, "pids"), logs: dir}
	g.Expect(os.MkdirAll(ps.pids, 0o755)).To(Succeed())
	runs := filepath.Join(dir, "runs")
	// It exits at once the first two times, and runs until stopped the
	// third.
	p := process{name: "flaky", binary: "sh", supervised: true, args: []string{"-c",
		`echo run >>"$0"; [ "$(wc -l <"$0")" -gt 2 ] && exec sleep 600; exit 3`, runs}}
	g.Expect(ps.start(p)).To(Succeed())
	t.Cleanup(func() { _ = ps.stop(p, 5*time.Second) })

	g.Eventually(func() int { return ps.restarts(p) }).WithTimeout(5 * time.Second).Should(Equal(2))
	started := time.Now()
	_, secondRun, err := ps.supervision(p)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(readFile(runs)).To(Equal("run\nrun\n"), "not started again at once after its first exit")
	g.Expect(ps.pid(p)).NotTo(BeZero(), "the supervisor runs on")
	g.Consistently(func() string { return readFile(runs) }).WithTimeout(8*time.Second-time.Since(started)).
		Should(Equal("run\nrun\n"), "started again before its back-off")
	g.Eventually(func() string { return readFile(runs) }).WithTimeout(10 * time.Second).Should(Equal("run\nrun\nrun\n"))
	g.Expect(ps.restarts(p)).To(Equal(2), "the third run is still running")
	_, thirdRun, err := ps.supervision(p)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(thirdRun.Sub(secondRun)).To(BeNumerically("~", 10*time.Second, time.Second), "the third run's start, after the back-off")
	// The supervisor counts whole seconds, so a short run that crossed one
	// shows "after 1s"; either way the restart came at once.
	g.Expect(readFile(ps.log(p.name))).To(MatchRegexp(`supervise: sh exited with 3 at \d+\.\d+ after \d+s; restart 1 in 0s`))

	g.Expect(ps.stop(p, 5*time.Second)).To(Succeed())
	g.Expect(ps.pid(p)).To(BeZero())
}

// A supervisor still reading its script keeps reading the script it
// started with when the next supervised process is started.
func TestSupervisorScriptIsReplacedNotRewritten(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	ps := processes{pids: dir, logs: dir}
	g.Expect(os.WriteFile(ps.supervisor(), []byte("# the running supervisor's script\n"), 0o644)).To(Succeed())
	running, err := os.Open(ps.supervisor())
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = running.Close() }()

	g.Expect(ps.writeSupervisor()).To(Succeed())
	g.Expect(io.ReadAll(running)).To(BeEquivalentTo("# the running supervisor's script\n"))
	g.Expect(readFile(ps.supervisor())).To(Equal(supervisor))
	entries, err := os.ReadDir(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(entries).To(HaveLen(1), "no temporary file left")
}

// readFile is the file's content, or "" when it cannot be read.
func readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// A reset back-off has the supervisor start the process again at once at
// its next exit, where it would have waited 10 s.
func TestSupervisedProcessRestartsAtOnceAfterReset(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	ps := processes{pids: filepath.Join(dir, "pids"), logs: dir}
	g.Expect(os.MkdirAll(ps.pids, 0o755)).To(Succeed())
	runs, exit := filepath.Join(dir, "runs"), filepath.Join(dir, "exit")
	// It exits at once the first time, once told to the second, and runs
	// until stopped the third.
	p := process{name: "flaky", binary: "sh", supervised: true, args: []string{"-c",
		`echo run >>"$0"; case $(wc -l <"$0") in 1) exit 3;; 2) until [ -e "$1" ]; do sleep 0.1; done; exit 3;; esac; exec sleep 600`,
		runs, exit}}
	g.Expect(ps.start(p)).To(Succeed())
	t.Cleanup(func() { _ = ps.stop(p, 5*time.Second) })

	g.Eventually(func() string { return readFile(runs) }).WithTimeout(5 * time.Second).Should(Equal("run\nrun\n"))
	g.Expect(ps.resetBackOff(p)).To(Succeed())
	g.Expect(os.WriteFile(exit, nil, 0o644)).To(Succeed())
	g.Eventually(func() string { return readFile(runs) }).WithTimeout(5*time.Second).
		Should(Equal("run\nrun\nrun\n"), "not started again at once after the reset")
	g.Expect(readFile(ps.log(p.name))).To(MatchRegexp(`restart 2 in 0s`))
	g.Expect(ps.resetFile(p.name)).NotTo(BeAnExistingFile(), "the marker removed once used")
}
