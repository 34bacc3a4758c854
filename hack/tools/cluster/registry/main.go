// Command registry is the distribution registry with the filesystem storage
// driver only, which the local cluster's registry uses
// (test/cluster/node.go): upstream's main compiles in the cloud storage
// drivers, which cost minutes on a cold build.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"

	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	// The command has printed its error.
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
