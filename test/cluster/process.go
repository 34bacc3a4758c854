package cluster

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one long-running program of the cluster. It runs in a
// session of its own, so that it outlives the command that started it,
// and is known by a pid file.
type process struct {
	name   string
	binary string
	args   []string
	// env is added to the environment it starts with.
	env []string
	// supervised runs it under supervise.sh, which starts it again when it
	// exits, with the kubelet's restart back-off, as the kubelet restarts
	// a static pod's container.
	supervised bool
}

// supervisor is supervise.sh.
//
//go:embed supervise.sh
var supervisor string

// processes keeps the pid files and logs of the cluster's processes.
type processes struct {
	pids string
	logs string
}

// command is the command line that runs p: its program and arguments, or
// the supervisor's, whose pid file then holds the supervisor's pid.
func (ps processes) command(p process) []string {
	if p.supervised {
		return append([]string{"bash", ps.supervisor(), ps.restartsFile(p.name), p.binary}, p.args...)
	}
	return append([]string{p.binary}, p.args...)
}

// start runs p, its output going to its log.
func (ps processes) start(p process) error {
	if p.supervised {
		if err := ps.writeSupervisor(); err != nil {
			return err
		}
	}
	logFile, err := os.OpenFile(ps.log(p.name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	command := ps.command(p)
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), p.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	// The process has its own copy of the file now.
	_ = logFile.Close()
	if err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	pid := cmd.Process.Pid
	// The process is not waited for: it belongs to no one once this
	// command ends, and init reaps it.
	_ = cmd.Process.Release()
	return os.WriteFile(ps.pidFile(p.name), []byte(strconv.Itoa(pid)), 0o644)
}

// writeSupervisor puts supervise.sh in place under a name of its own
// first, never rewriting the file: bash reads a script as it runs it, and a
// supervisor started a moment before, still reading, ended at once when its
// script was truncated under it, before it started its process.
func (ps processes) writeSupervisor() error {
	tmp, err := os.CreateTemp(ps.pids, ".supervise-*.sh")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(supervisor)
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), ps.supervisor())
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing the supervisor: %w", err)
	}
	return nil
}

// signature is how the process's command line starts: its program and, as
// the Kubernetes components share one program, the first argument; for a
// supervised process, the supervisor and its restarts file, which names
// the process.
func (ps processes) signature(p process) string {
	command := ps.command(p)
	n := 2
	if p.supervised {
		n = 3
	}
	return strings.Join(command[:min(n, len(command))], "\x00") + "\x00"
}

// restarts is how many times the supervisor restarted p, or -1 when p is
// not supervised or has not started.
func (ps processes) restarts(p process) int {
	n, _, err := ps.supervision(p)
	if err != nil {
		return -1
	}
	return n
}

// supervision reads what the supervisor of p records: how many times it
// restarted p, and when it last started it.
func (ps processes) supervision(p process) (restarts int, started time.Time, err error) {
	if !p.supervised {
		return 0, time.Time{}, fmt.Errorf("%s is not supervised", p.name)
	}
	data, err := os.ReadFile(ps.restartsFile(p.name))
	if err != nil {
		return 0, time.Time{}, err
	}
	var seconds float64
	if _, err := fmt.Sscan(string(data), &restarts, &seconds); err != nil {
		return 0, time.Time{}, fmt.Errorf("reading %s: %w", ps.restartsFile(p.name), err)
	}
	return restarts, time.Unix(0, int64(seconds*float64(time.Second))), nil
}

// pid is the pid of the process when it runs, and 0 otherwise. A pid file
// whose pid another program took since is not believed.
func (ps processes) pid(p process) int {
	data, err := os.ReadFile(ps.pidFile(p.name))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	// A process that has just exec'd shows an empty command line for a
	// moment; one that has exited (a zombie, as no one waits for it here)
	// shows an empty one for good.
	for range 20 {
		if zombie(pid) {
			return 0
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return 0
		}
		if len(cmdline) > 0 {
			if strings.HasPrefix(string(cmdline), ps.signature(p)) {
				return pid
			}
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// zombie tells whether a process has exited and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's name, which is in parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// stop asks the process to stop, and kills it if it has not within grace.
// It removes its pid file.
func (ps processes) stop(p process, grace time.Duration) error {
	pid := ps.pid(p)
	defer func() { _ = os.Remove(ps.pidFile(p.name)) }()
	if pid == 0 {
		return nil
	}
	if err := signalGroup(pid, syscall.SIGTERM); err != nil {
		return err
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if ps.pid(p) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	logf("%s did not stop within %s; killing it", p.name, grace)
	return signalGroup(pid, syscall.SIGKILL)
}

// signalGroup signals the process, and the processes of its session that
// share its process group (a kubelet's, a containerd's children).
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		err = syscall.Kill(pid, sig)
	}
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func (ps processes) pidFile(name string) string { return filepath.Join(ps.pids, name) }

func (ps processes) restartsFile(name string) string { return filepath.Join(ps.pids, name+".restarts") }

// resetBackOff has the supervisor of p start it again at once at its next
// exit, as after a run of 10 minutes.
func (ps processes) resetBackOff(p process) error {
	if !p.supervised {
		return fmt.Errorf("%s is not supervised", p.name)
	}
	return os.WriteFile(ps.resetFile(p.name), nil, 0o644)
}

// resetFile is the marker supervise.sh reads: the restarts file's name
// with .reset added.
func (ps processes) resetFile(name string) string { return ps.restartsFile(name) + ".reset" }

func (ps processes) supervisor() string { return filepath.Join(ps.pids, "supervise.sh") }

func (ps processes) log(name string) string { return filepath.Join(ps.logs, name+".log") }

// tail is the end of the named process's log, to tell why it stopped.
func (ps processes) tail(name string, lines int) string {
	data, err := os.ReadFile(ps.log(name))
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cluster: "+format+"\n", args...)
}
