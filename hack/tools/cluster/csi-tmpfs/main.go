// Command csi-tmpfs is the local cluster's CSI driver: volumes of a real
// size that grow while in use, snapshots and restores, and the usage the
// kubelet reports, on the one real node, for the storage lifecycle of
// DemoVolumes (docs/local-cluster.md). csi-driver-host-path, upstream's
// example driver, is not served by the Go module proxy, nor is the
// node-driver-registrar: this program registers itself with the kubelet.
//
// It runs beside the external provisioner, resizer and snapshotter, which
// talk to it on its socket.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"k8s.io/apimachinery/pkg/api/resource"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

func main() {
	d := &driver{version: "v1"}
	var socket, registrationDir, dataDir string
	maxSize := resource.MustParse("4Gi")
	flag.StringVar(&d.name, "driver-name", "tmpfs.csi.seed.local", "The driver's name, which StorageClasses name as their provisioner.")
	flag.StringVar(&d.nodeID, "node-id", "", "The node's name.")
	flag.StringVar(&socket, "socket", "", "The path of the socket to serve CSI on.")
	flag.StringVar(&registrationDir, "registration-dir", "",
		"The kubelet's plugin registry folder, in which to register the driver; empty: do not register.")
	flag.StringVar(&dataDir, "data-dir", "", "The folder of the volumes' mounts and of the snapshots.")
	flag.Var(quantity{&maxSize}, "max-volume-size", "The largest volume the driver makes.")
	flag.Parse()
	if d.nodeID == "" || socket == "" || dataDir == "" {
		log.Fatal("--node-id, --socket and --data-dir are required")
	}
	d.maxSize = maxSize.Value()
	d.store = store{volumes: filepath.Join(dataDir, "volumes"), snapshots: filepath.Join(dataDir, "snapshots")}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	server := grpc.NewServer(grpc.UnaryInterceptor(logErrors))
	csi.RegisterIdentityServer(server, d)
	csi.RegisterControllerServer(server, d)
	csi.RegisterNodeServer(server, d)
	servers := []*grpc.Server{server}
	errs := make(chan error, 2)
	go func() { errs <- serve(server, socket) }()
	if registrationDir != "" {
		registrar := grpc.NewServer()
		registerapi.RegisterRegistrationServer(registrar, registration{name: d.name, endpoint: socket})
		servers = append(servers, registrar)
		go func() { errs <- serve(registrar, filepath.Join(registrationDir, d.name+"-reg.sock")) }()
	}
	log.Printf("driver %s serving on %s for node %s", d.name, socket, d.nodeID)
	select {
	case err := <-errs:
		log.Fatal(err)
	case <-ctx.Done():
		for _, s := range servers {
			s.GracefulStop()
		}
	}
}

// serve serves s on a Unix socket at path, replacing one a previous run
// left.
func serve(s *grpc.Server, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	listener, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	return s.Serve(listener)
}

// logErrors logs each call that fails, as the sidecars only retry them.
func logErrors(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		log.Printf("%s: %v", info.FullMethod, err)
	}
	return resp, err
}

// registration answers the kubelet's plugin watcher, which finds its
// socket in the plugin registry and then calls the driver on endpoint.
type registration struct {
	registerapi.UnimplementedRegistrationServer
	name, endpoint string
}

func (r registration) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{
		Type: registerapi.CSIPlugin, Name: r.name, Endpoint: r.endpoint, SupportedVersions: []string{"1.0.0"},
	}, nil
}

// NotifyRegistrationStatus ends the program when the kubelet refuses the
// driver, so that its restart tries again.
func (r registration) NotifyRegistrationStatus(
	_ context.Context, s *registerapi.RegistrationStatus,
) (*registerapi.RegistrationStatusResponse, error) {
	if !s.PluginRegistered {
		log.Fatalf("the kubelet refused the driver: %s", s.Error)
	}
	log.Print("registered with the kubelet")
	return &registerapi.RegistrationStatusResponse{}, nil
}

// quantity is a flag of a Kubernetes quantity.
type quantity struct{ q *resource.Quantity }

func (f quantity) String() string {
	if f.q == nil {
		return ""
	}
	return f.q.String()
}

func (f quantity) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return err
	}
	*f.q = q
	return nil
}
