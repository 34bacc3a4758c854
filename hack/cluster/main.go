// Command cluster runs the local cluster (test/cluster): `cluster up`,
// `cluster down` and `cluster status`, configured from the environment as
// the Makefile sets it (make cluster-up, cluster-down, cluster-status);
// `cluster registry` prints the registry's host:port, where `make images`
// pushes, `cluster registry-tls` that of its HTTPS twin, and
// `cluster steer NAMESPACE` annotates a namespace so that its pods run on
// the real node, and `cluster certificate NAME DNS...` issues a serving
// certificate from the cluster's CA.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/seed-operators/seed-operator/test/cluster"
)

const usage = "usage: cluster up|down|status|registry|registry-tls|steer NAMESPACE|certificate NAME DNS [DNS ...]"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	config, err := cluster.ConfigFromEnv()
	if err == nil {
		c := cluster.New(config)
		switch os.Args[1] {
		case "up":
			err = c.Up(ctx)
		case "down":
			err = c.Down(ctx)
		case "status":
			err = c.Status()
		case "registry":
			fmt.Println(config.RegistryHost())
		case "registry-tls":
			fmt.Println(config.RegistryTLSHost())
		case "steer":
			if len(os.Args) != 3 {
				err = fmt.Errorf("usage: cluster steer NAMESPACE")
				break
			}
			err = c.Steer(os.Args[2])
		case "certificate":
			err = printCertificate(config, os.Args[2:])
		default:
			err = fmt.Errorf("unknown command %q: %s", os.Args[1], usage)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
		os.Exit(1)
	}
}

// printCertificate issues a serving certificate from the cluster's CA and
// prints the files of the certificate, its key and the CA, a line each.
func printCertificate(config cluster.Config, args []string) error {
	if len(args) < 2 {
		return errors.New("usage: cluster certificate NAME DNS [DNS ...]")
	}
	cert, key, ca, err := config.ServingCertificate(args[0], args[1:]...)
	if err != nil {
		return err
	}
	fmt.Println(cert)
	fmt.Println(key)
	fmt.Println(ca)
	return nil
}
