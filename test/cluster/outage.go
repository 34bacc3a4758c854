package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

// The components a suite may take down and bring back: etcd and the API
// server for an outage; kwok, which plays again, once restarted, the
// stages of pods it gave up on while the API server failed its requests;
// and the real node's kubelet and containerd, whose pods' containers run
// on without them.
const (
	Etcd       = etcdName
	APIServer  = apiServerName
	Kwok       = kwokName
	Kubelet    = kubeletName
	Containerd = containerdName
)

// The components the cluster starts again itself when they exit, as the
// kubelet restarts a static pod's container: Started tells when it last
// did.
const (
	ControllerManager = controllerManagerName
	Scheduler         = schedulerName
)

// Started is when the supervisor of the controller manager or the
// scheduler last started it.
func (cl *Cluster) Started(name string) (time.Time, error) {
	var p process
	switch name {
	case ControllerManager:
		p = cl.controllerManager()
	case Scheduler:
		p = cl.scheduler()
	default:
		return time.Time{}, fmt.Errorf("%q is not started again by the cluster: only %s and %s are", name, ControllerManager, Scheduler)
	}
	_, started, err := cl.ps.supervision(p)
	return started, err
}

// ResetRestartBackOff has the cluster start the controller manager and the
// scheduler again at once the next time they exit, as the kubelet does
// once a container has run 10 minutes: the back-off earlier exits left
// no longer counts.
func (cl *Cluster) ResetRestartBackOff() error {
	for _, p := range []process{cl.controllerManager(), cl.scheduler()} {
		if err := cl.ps.resetBackOff(p); err != nil {
			return err
		}
	}
	return nil
}

// Kill ends a component of the running cluster at once (SIGKILL), as a
// crash would, and waits until it is gone; Restart brings it back.
func (cl *Cluster) Kill(name string) error {
	p, _, err := cl.component(name)
	if err != nil {
		return err
	}
	pid := cl.ps.pid(p)
	if pid == 0 {
		return fmt.Errorf("%s is not running", name)
	}
	if err := signalGroup(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing %s: %w", name, err)
	}
	for deadline := time.Now().Add(10 * time.Second); cl.ps.pid(p) != 0; {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (pid %d) still runs 10s after SIGKILL", name, pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Up and waitFor take a pid file whose process is gone for a crash.
	if err := os.Remove(cl.ps.pidFile(p.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Restart starts a component that Kill ended, with the arguments it had,
// and returns once it is ready.
func (cl *Cluster) Restart(ctx context.Context, name string) error {
	p, ready, err := cl.component(name)
	if err != nil {
		return err
	}
	if pid := cl.ps.pid(p); pid != 0 {
		return fmt.Errorf("%s runs already (pid %d)", name, pid)
	}
	return cl.startAndWait(ctx, p, 90*time.Second, ready)
}

// component is the process of a component Kill and Restart handle, and
// the check that it is ready, as Up waits for it.
func (cl *Cluster) component(name string) (process, func() error, error) {
	switch name {
	case Etcd:
		return cl.etcd(), cl.etcdReady, nil
	case APIServer:
		return cl.apiServer(), cl.apiServerReady, nil
	case Kwok:
		return cl.kwok(), cl.kwokReady, nil
	case Kubelet, Containerd:
		if cl.RealNodes == 0 {
			return process{}, nil, fmt.Errorf("no outage of %s: the cluster has no real node", name)
		}
		if name == Kubelet {
			return cl.kubelet(), cl.kubeletReady, nil
		}
		return cl.containerd(), cl.containerdReady, nil
	default:
		return process{}, nil, fmt.Errorf("no outage of %q: only %s, %s, %s, %s and %s", name, Etcd, APIServer, Kwok, Kubelet, Containerd)
	}
}

func (cl *Cluster) kubeletReady() error {
	return httpOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", cl.Ports.KubeletHealthz))
}

// containerdReady tells whether containerd answers on its socket: a killed
// one leaves the file behind.
func (cl *Cluster) containerdReady() error {
	conn, err := net.DialTimeout("unix", cl.containerdSocket(), 2*time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

func (cl *Cluster) kwokReady() error {
	return httpOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", cl.Ports.Kwok))
}

func (cl *Cluster) etcdReady() error {
	return httpOK(fmt.Sprintf("http://127.0.0.1:%d/health", cl.Ports.Etcd))
}

func (cl *Cluster) apiServerReady() error {
	return cl.kubectl("get", "--raw=/readyz")
}

// apiReady tells whether the API server answers that it is ready.
func (cl *Cluster) apiReady() bool {
	return cl.apiServerReady() == nil
}
