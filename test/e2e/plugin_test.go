//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// kubectlSeed runs the kubectl plugin as a user runs it, on the cluster of
// the suite's KUBECONFIG, and returns what it printed.
func kubectlSeed(ctx context.Context, args ...string) string {
	GinkgoHelper()
	plugin := os.Getenv("KUBECTL_SEED")
	Expect(plugin).NotTo(BeEmpty(), "KUBECTL_SEED must name the plugin: run `make test-e2e`")
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, plugin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "kubectl seed %s: %s", strings.Join(args, " "), stderr.String())
	GinkgoWriter.Printf("$ kubectl seed %s\n%s", strings.Join(args, " "), out)
	return string(out)
}
