package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/api/pkg/manifests"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// test checks something of the operator in a cluster, with the CSV's
// alm-examples.
type test func(ctx context.Context, c client.Client, namespace string, examples []unstructured.Unstructured) scapiv1alpha3.TestResult

// kinds are the kinds of the API, each with a test that its example
// becomes Ready.
var kinds = []string{"WebServer", "Echo", "ScheduledEcho", "ImmortalContainer", "DemoVolume"}

func tests() map[string]test {
	all := map[string]test{"alm-examples-dry-run": dryRun}
	for _, kind := range kinds {
		all[strings.ToLower(kind)+"-ready"] = becomesReady(kind)
	}
	return all
}

func testNames() []string {
	return slices.Sorted(maps.Keys(tests()))
}

// almExamples are the examples the bundle's CSV carries.
func almExamples(bundleDir string) ([]unstructured.Unstructured, error) {
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		return nil, fmt.Errorf("reading the bundle in %s: %w", bundleDir, err)
	}
	var examples []unstructured.Unstructured
	if err := json.Unmarshal([]byte(bundle.CSV.GetAnnotations()["alm-examples"]), &examples); err != nil {
		return nil, fmt.Errorf("reading the CSV's alm-examples: %w", err)
	}
	return examples, nil
}

// dryRun passes when the API server accepts every example as it is, in a
// server-side dry run that runs validation and admission but stores nothing.
// Each goes under a name of its own, as in becomesReady: the examples
// themselves may already be in the namespace, created by a user.
func dryRun(ctx context.Context, c client.Client, namespace string, examples []unstructured.Unstructured) scapiv1alpha3.TestResult {
	r := scapiv1alpha3.TestResult{Name: "alm-examples-dry-run", State: scapiv1alpha3.PassState}
	if len(examples) == 0 {
		return fail(r, errors.New("the CSV has no alm-examples"))
	}
	var log strings.Builder
	for _, example := range examples {
		obj := example.DeepCopy()
		obj.SetNamespace(namespace)
		obj.SetName(obj.GetName() + "-" + rand.String(5))
		if err := c.Create(ctx, obj, client.DryRunAll); err != nil {
			r = fail(r, fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err))
			continue
		}
		fmt.Fprintf(&log, "%s %s: accepted\n", obj.GetKind(), obj.GetName())
	}
	r.Log = log.String()
	return r
}

// becomesReady passes when the kind's example, created under a name of its
// own, reports Ready for its generation before the context ends. It is
// deleted afterwards, with what it owns.
func becomesReady(kind string) test {
	name := strings.ToLower(kind) + "-ready"
	return func(ctx context.Context, c client.Client, namespace string, examples []unstructured.Unstructured) scapiv1alpha3.TestResult {
		r := scapiv1alpha3.TestResult{Name: name, State: scapiv1alpha3.PassState}
		i := slices.IndexFunc(examples, func(u unstructured.Unstructured) bool { return u.GetKind() == kind })
		if i < 0 {
			return fail(r, fmt.Errorf("the CSV has no alm-example of kind %s", kind))
		}
		obj := examples[i].DeepCopy()
		obj.SetNamespace(namespace)
		obj.SetName(obj.GetName() + "-" + rand.String(5))
		if err := c.Create(ctx, obj); err != nil {
			return fail(r, fmt.Errorf("creating %s %s: %w", kind, obj.GetName(), err))
		}
		defer func() {
			// A fresh context: the test's may have ended.
			cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = c.Delete(cleanup, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		}()

		start := time.Now()
		var last string
		err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return false, err
			}
			ready, observed := readyCondition(obj)
			last = observed
			return ready, nil
		})
		if err != nil {
			return fail(r, fmt.Errorf("%s %s did not become Ready: %w; last seen: %s", kind, obj.GetName(), err, last))
		}
		r.Log = fmt.Sprintf("%s %s was Ready after %s: %s\n", kind, obj.GetName(), time.Since(start).Round(time.Second), last)
		return r
	}
}

// readyCondition tells whether obj's Ready condition is true for its
// current generation, and describes the condition.
func readyCondition(obj *unstructured.Unstructured) (bool, string) {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	data, err := json.Marshal(raw)
	if err != nil {
		return false, err.Error()
	}
	var conditions []metav1.Condition
	if err := json.Unmarshal(data, &conditions); err != nil {
		return false, err.Error()
	}
	ready := meta.FindStatusCondition(conditions, seedv1alpha1.ConditionReady)
	if ready == nil {
		return false, "no Ready condition yet"
	}
	return ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == obj.GetGeneration(),
		fmt.Sprintf("Ready=%s (%s: %s)", ready.Status, ready.Reason, ready.Message)
}

func fail(r scapiv1alpha3.TestResult, err error) scapiv1alpha3.TestResult {
	r.State = scapiv1alpha3.FailState
	r.Errors = append(r.Errors, err.Error())
	return r
}
