// Command seed-scorecard runs the project's own scorecard tests. Like the
// standard scorecard-test program it reads the bundle from /bundle, runs the
// test its first argument names, and prints only a scorecard v1alpha3
// TestStatus as JSON, which the scorecard runner reads from the pod's log.
//
// usage: seed-scorecard TEST
//
// The tests use the cluster of the pod's service account (or of KUBECONFIG)
// and the namespace in SCORECARD_NAMESPACE.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// bundleRoot is where the scorecard runner mounts the bundle in a test's pod.
const bundleRoot = "/bundle"

func main() {
	timeout := flag.Duration("timeout", 100*time.Second,
		"How long a test waits for a resource to be Ready; keep it below the runner's --wait-time.")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "usage: seed-scorecard TEST\ntests: %v\n", testNames())
		os.Exit(2)
	}
	name := flag.Arg(0)

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	result := run(ctx, name)
	out, err := json.MarshalIndent(scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{result}}, "", "  ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "encoding the result: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

// run runs one test against the cluster and returns its result; a test that
// cannot even start is an error, not a failure.
func run(ctx context.Context, name string) scapiv1alpha3.TestResult {
	test, ok := tests()[name]
	if !ok {
		return errorResult(name, fmt.Errorf("no test %q; the tests are %v", name, testNames()))
	}
	examples, err := almExamples(bundleRoot)
	if err != nil {
		return errorResult(name, err)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return errorResult(name, fmt.Errorf("finding the cluster: %w", err))
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return errorResult(name, fmt.Errorf("creating a client: %w", err))
	}
	namespace := os.Getenv("SCORECARD_NAMESPACE")
	if namespace == "" {
		namespace = "default"
	}
	return test(ctx, c, namespace, examples)
}

func errorResult(name string, err error) scapiv1alpha3.TestResult {
	return scapiv1alpha3.TestResult{Name: name, State: scapiv1alpha3.ErrorState, Errors: []string{err.Error()}}
}
