package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The real node changes the host: a bridge and a route, nftables rules,
// kernel settings, mounts, cgroups and a few paths outside the cluster's
// directory that the tools insist on. hostState records how the host was
// before, so that cluster-down, or the next cluster-up after a crash, puts
// it back.
type hostState struct {
	// Sysctls are the kernel settings the tools change, as they were.
	Sysctls map[string]string `json:"sysctls"`
	// CreatedPaths did not exist before, and are removed.
	CreatedPaths []string `json:"createdPaths"`
}

// toolSysctls are the kernel settings the node's programs change: the
// kubelet its kernel tunables, kube-proxy and the bridge plugin the
// forwarding and netfilter settings.
var toolSysctls = []string{
	"vm.overcommit_memory", "vm.panic_on_oom", "kernel.panic", "kernel.panic_on_oops",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward", "net.ipv4.conf.all.route_localnet",
	"net.bridge.bridge-nf-call-iptables", "net.bridge.bridge-nf-call-ip6tables",
}

// toolPaths are the paths outside the cluster's directory that the node's
// programs create whatever they are told: the kubelet's plugin and log
// folders, containerd's shim sockets, the CNI plugins' cache.
var toolPaths = []string{
	"/var/lib/kubelet", "/var/log/containers", "/var/log/pods",
	"/run/containerd", "/var/lib/cni", "/run/netns",
}

// guardTable is the nftables table of the guard: nothing from the test
// range leaves but onto the bridge, and pods reach the host only on its
// bridge address.
const guardTable = "seed-guard"

func (c Config) hostStateFile() string { return c.path("host-state.json") }

// recordHost saves how the host is before the node changes it.
func (c Config) recordHost() error {
	state := hostState{Sysctls: map[string]string{}}
	for _, name := range toolSysctls {
		if value, err := readSysctl(name); err == nil {
			state.Sysctls[name] = value
		}
	}
	for _, path := range toolPaths {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			state.CreatedPaths = append(state.CreatedPaths, path)
		}
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.hostStateFile(), data, 0o644)
}

// prepareHost makes the bridge the node's pods attach to, routes the whole
// test range onto it, and sets up the guard.
func (c Config) prepareHost() error {
	steps := []string{
		"ip link add " + bridgeName + " type bridge",
		fmt.Sprintf("ip addr add %s/%d dev %s", hostAddress, realPodSubnet.Bits(), bridgeName),
		"ip link set " + bridgeName + " up",
		// Traffic to any address of the test range stays on the bridge,
		// even to a Service when kube-proxy is not running.
		fmt.Sprintf("ip route add %s dev %s src %s", testRange, bridgeName, hostAddress),
	}
	for _, step := range steps {
		if err := run(strings.Fields(step)...); err != nil {
			return err
		}
	}
	return runInput(c.guardRules(), "nft", "-f", "-")
}

// guardRules drop what would leave the test range's network: packets from
// it forwarded anywhere but the bridge, and packets from pods to any host
// address but the bridge's. Replies to connections the host opened pass.
func (c Config) guardRules() string {
	return fmt.Sprintf(`table inet %[1]s {
	chain forward {
		type filter hook forward priority filter - 10; policy accept;
		ip saddr %[2]s oifname != %[3]q drop
		ip daddr %[2]s iifname != %[3]q drop
		meta nfproto ipv6 iifname %[3]q drop
	}
	chain input {
		type filter hook input priority filter - 10; policy accept;
		iifname %[3]q ct state established,related accept
		iifname %[3]q ip daddr != %[4]s drop
		iifname %[3]q meta nfproto ipv6 drop
	}
}
`, guardTable, testRange, bridgeName, hostAddress)
}

// restoreHost undoes what the node did to the host, from what recordHost
// saved; without a record, there is nothing of the node's to undo.
func (c Config) restoreHost() error {
	data, err := os.ReadFile(c.hostStateFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var state hostState
	if err := json.Unmarshal(data, &state); err != nil {
		return fmt.Errorf("reading %s: %w", c.hostStateFile(), err)
	}
	var errs []error
	errs = append(errs, c.killContainers(), c.removeCgroups(), unmountUnder(c.Dir))
	for _, path := range state.CreatedPaths {
		errs = append(errs, unmountUnder(path))
	}
	errs = append(errs, c.removeNetwork())
	for name, value := range state.Sysctls {
		errs = append(errs, writeSysctl(name, value))
	}
	for _, path := range state.CreatedPaths {
		errs = append(errs, os.RemoveAll(path))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(c.hostStateFile())
}

// leftNetwork says whether the node's network is there: the bridge or the
// guard. Their names are the host's, not the cluster directory's, so a
// cluster of another checkout whose run was cut off leaves them in the way
// of this one.
func leftNetwork() bool {
	_, err := net.InterfaceByName(bridgeName)
	return err == nil || run("nft", "list", "table", "inet", guardTable) == nil
}

// removeNetwork removes kube-proxy's rules, the guard and the bridge.
func (c Config) removeNetwork() error {
	var errs []error
	if c.Kube != "" {
		// kube-proxy removes its own rules, in both of its modes; it
		// complains of the mode it never used, so only its tables tell.
		_ = run(c.Kube, "kube-proxy", "--cleanup")
		for _, family := range []string{"ip", "ip6"} {
			if run("nft", "list", "table", family, "kube-proxy") == nil {
				errs = append(errs, fmt.Errorf("kube-proxy --cleanup left its %s table", family))
			}
		}
	}
	if run("nft", "list", "table", "inet", guardTable) == nil {
		errs = append(errs, run("nft", "delete", "table", "inet", guardTable))
	}
	if _, err := net.InterfaceByName(bridgeName); err == nil {
		errs = append(errs, run("ip", "link", "delete", bridgeName))
	}
	return errors.Join(errs...)
}

// killContainers stops every container runc still runs for the node, and
// the shims that watched them, as after a crash.
func (c Config) killContainers() error {
	var errs []error
	root := filepath.Join(c.runcRoot(), "k8s.io")
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			// delete --force kills the container first.
			errs = append(errs, run(c.Runc, "--root", root, "delete", "--force", e.Name()))
		}
	}
	if c.ContainerdShim != "" {
		for _, pid := range processesOf(c.ContainerdShim) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the kubelet's cgroups, after killing what is left
// in them. Each cgroup v1 hierarchy has its own tree.
func (c Config) removeCgroups() error {
	hierarchies, err := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	if err != nil {
		return err
	}
	var errs []error
	for _, top := range hierarchies {
		var dirs []string
		_ = filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for _, dir := range dirs {
			killCgroup(dir)
		}
		// The deepest first: a cgroup with children cannot go.
		slices.Reverse(dirs)
		for _, dir := range dirs {
			errs = append(errs, removeCgroup(dir))
		}
	}
	return errors.Join(errs...)
}

func killCgroup(dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for _, field := range strings.Fields(string(data)) {
		var pid int
		if _, err := fmt.Sscan(field, &pid); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// removeCgroup removes an empty cgroup, waiting a moment for the processes
// just killed to leave it.
func removeCgroup(dir string) error {
	var err error
	for range 50 {
		if err = syscall.Rmdir(dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", dir, err)
}

// unmountUnder detaches every mount at or below dir, the deepest first:
// the kubelet's bind mount of its root directory, pod volumes, network
// namespaces, overlay root file systems.
func unmountUnder(dir string) error {
	mounts, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	var errs []error
	for i := len(mounts) - 1; i >= 0; i-- {
		if err := syscall.Unmount(mounts[i], syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", mounts[i], err))
		}
	}
	return errors.Join(errs...)
}

// mountsUnder are the mount points at or below dir, in the order they were
// mounted.
func mountsUnder(dir string) ([]string, error) {
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mounts []string
	for _, line := range strings.Split(string(mountinfo), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		point := unescapeMountPath(fields[4])
		if point == dir || strings.HasPrefix(point, dir+"/") {
			mounts = append(mounts, point)
		}
	}
	return mounts, nil
}

// unescapeMountPath decodes the octal escapes mountinfo uses for spaces and
// the like.
func unescapeMountPath(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// processesOf are the pids of the processes running binary.
func processesOf(binary string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(cmdline), binary+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}

func sysctlPath(name string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))
}

func readSysctl(name string) (string, error) {
	data, err := os.ReadFile(sysctlPath(name))
	return strings.TrimSpace(string(data)), err
}

func writeSysctl(name, value string) error {
	if current, err := readSysctl(name); err == nil && current == value {
		return nil
	}
	if err := os.WriteFile(sysctlPath(name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("restoring %s=%s: %w", name, value, err)
	}
	return nil
}

// run runs a command, and returns its output as the error when it fails.
func run(args ...string) error {
	return runInput("", args...)
}

func runInput(input string, args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
