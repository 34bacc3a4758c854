//go:build olm

package olm

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("Upgraded by OLM under load", Serial, func() {
	const readyWithin = time.Minute

	It("upgrades while resources are made, scaled and deleted: nothing lost or made twice, no object fought over, all Ready within a minute",
		func(ctx SpecContext) {
			perKind := loadPerKind()
			// Of the first half, made before the upgrade, a tenth of
			// OLM_LOAD of each kind is deleted during it.
			deletedPerKind := perKind / 10
			source, ns, sub, old := installPrevious(ctx, "seed-load")
			// The load's pods run on the kwok nodes, the operator's on the
			// real node.
			work := testenv.RestrictedNamespace(ctx, k8sClient, "seed-load-work", nil)
			templates := examples(old, work)

			By(fmt.Sprintf("making half of %d resources under %s", perKind*len(templates), previousVersion))
			firstHalf := copies(templates, 0, perKind/2)
			DeferCleanup(deleteAll, firstHalf)
			create(ctx, firstHalf)
			for _, o := range firstHalf {
				expectReady(ctx, o)
			}
			ownedBefore := controlled(ctx, work)

			By("publishing the catalog of " + version + " while the other half is made, the WebServers scaled and some of each kind deleted")
			audit := testenv.StartAuditLog()
			start := time.Now()
			publish(ctx, source)
			secondHalf := copies(templates, perKind/2, perKind)
			DeferCleanup(deleteAll, secondHalf)
			var deleted []*unstructured.Unstructured
			var loaded time.Time
			var load sync.WaitGroup
			load.Go(func() {
				defer GinkgoRecover()
				create(ctx, secondHalf)
				deleted = scaleAndDelete(ctx, firstHalf, deletedPerKind)
				loaded = time.Now()
			})
			installed(ctx, sub, csvName(version))
			upgraded := time.Now()
			load.Wait()

			By("every resource Ready for its latest generation within a minute of the later of the upgrade and the load")
			live := append(slices.DeleteFunc(slices.Clone(firstHalf), func(o *unstructured.Unstructured) bool {
				return slices.Contains(deleted, o)
			}), secondHalf...)
			for _, o := range live {
				expectReady(ctx, o)
			}
			settled := upgraded
			if loaded.After(settled) {
				settled = loaded
			}
			ready := time.Since(settled)

			By("every live resource controlling one of each object it owns, those of the first half the same objects as before")
			owned := controlled(ctx, work)
			for _, o := range live {
				kinds := make([]string, 0, len(owned[o.GetUID()]))
				for _, object := range owned[o.GetUID()] {
					kinds = append(kinds, object.kind)
				}
				Expect(kinds).To(ConsistOf(ownedKinds[o.GetKind()]), "the kinds of what %s %s controls", o.GetKind(), o.GetName())
			}
			for uid, objects := range ownedBefore {
				if slices.ContainsFunc(deleted, func(o *unstructured.Unstructured) bool { return o.GetUID() == uid }) {
					continue
				}
				Expect(owned[uid]).To(Equal(objects), "the objects of a resource made before the upgrade")
			}
			Eventually(ctx, func(g Gomega) {
				owned := controlled(ctx, work)
				for _, o := range deleted {
					g.Expect(owned).NotTo(HaveKey(o.GetUID()), "objects of %s %s, deleted", o.GetKind(), o.GetName())
				}
			}).Should(Succeed())

			By("each owned object made once, and never written back by one operator pod after another wrote it")
			w := ownedWritesIn(audit.Events("system:serviceaccount:"+ns+":"+managerDeployment), work)
			Expect(w.made).NotTo(BeEmpty(), "the audit log has no object the operator made for the second half")
			for object, n := range w.made {
				Expect(n).To(Equal(1), "times %s was made", object)
			}
			most := slices.Max(append(slices.Collect(maps.Values(w.updates)), 0))
			byBoth := 0
			for _, pods := range w.writers {
				if len(pods) > 1 {
					byBoth++
				}
			}

			report := fmt.Sprintf("catalog published to %s Succeeded in %.1fs, the load (%d made, %d WebServers scaled, %d deleted) done at %.1fs; all %d resources Ready %.1fs after the later; "+
				"%d objects made once each; %d writes of %d owned objects, at most %d of one, %d written by more than one operator pod, %d back and forth",
				csvName(version), upgraded.Sub(start).Seconds(), len(secondHalf), perKind/2, len(deleted), loaded.Sub(start).Seconds(), len(live), ready.Seconds(),
				len(w.made), sum(w.updates), len(w.updates), most, byBoth, len(w.fought))
			AddReportEntry("upgrade under load", report)
			GinkgoWriter.Println("Upgrade under load: " + report)
			Expect(w.fought).To(BeEmpty(), "owned objects written back and forth by the operator's pods")
			Expect(ready).To(BeNumerically("<=", readyWithin), "all Ready after the upgrade and the load")
		})
})

// loadPerKind is OLM_LOAD, how many resources of each kind the load makes:
// `make test-olm OLM_LOAD=60` for the full form, CI runs a short one.
func loadPerKind() int {
	n, err := strconv.Atoi(os.Getenv("OLM_LOAD"))
	Expect(err).NotTo(HaveOccurred(), "OLM_LOAD must be a number of resources per kind: run `make test-olm`")
	Expect(n).To(BeNumerically(">=", 10), "OLM_LOAD must be at least 10, so that a tenth of it is deleted")
	return n
}

// ownedKinds are the kinds of the objects each kind controls, one of each.
var ownedKinds = map[string][]string{
	"WebServer":         {"Deployment", "Service"},
	"Echo":              {"Job"},
	"ScheduledEcho":     {"CronJob"},
	"ImmortalContainer": {"Pod"},
	"DemoVolume":        {"PersistentVolumeClaim"},
}

// copies are copies of each template numbered from first to last
// (excluded), each named after its template and number.
func copies(templates []*unstructured.Unstructured, first, last int) []*unstructured.Unstructured {
	var objects []*unstructured.Unstructured
	for i := first; i < last; i++ {
		for _, t := range templates {
			o := t.DeepCopy()
			o.SetName(fmt.Sprintf("%s-%d", t.GetName(), i))
			objects = append(objects, o)
		}
	}
	return objects
}

// create creates the objects, as fast as the API server takes them.
func create(ctx context.Context, objects []*unstructured.Unstructured) {
	for _, o := range objects {
		Expect(k8sClient.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
	}
}

// scaleAndDelete sets every WebServer of objects to three replicas, then
// deletes the first perKind of each kind, and returns those.
func scaleAndDelete(ctx context.Context, objects []*unstructured.Unstructured, perKind int) []*unstructured.Unstructured {
	for _, o := range objects {
		if o.GetKind() == "WebServer" {
			testenv.Update(ctx, k8sClient, o, func(o *unstructured.Unstructured) {
				Expect(unstructured.SetNestedField(o.Object, int64(3), "spec", "replicas")).To(Succeed())
			})
		}
	}
	var deleted []*unstructured.Unstructured
	count := map[string]int{}
	for _, o := range objects {
		if count[o.GetKind()] < perKind {
			count[o.GetKind()]++
			Expect(k8sClient.Delete(ctx, o)).To(Succeed())
			deleted = append(deleted, o)
		}
	}
	return deleted
}

// controlled are the objects in namespace that a custom resource
// controls, by the resource's UID, sorted.
func controlled(ctx context.Context, namespace string) map[types.UID][]ownedObject {
	byOwner := map[types.UID][]ownedObject{}
	lists := map[string]client.ObjectList{
		"Deployment": &appsv1.DeploymentList{}, "Service": &corev1.ServiceList{}, "Job": &batchv1.JobList{},
		"CronJob": &batchv1.CronJobList{}, "Pod": &corev1.PodList{}, "PersistentVolumeClaim": &corev1.PersistentVolumeClaimList{},
	}
	for kind, list := range lists {
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		Expect(meta.EachListItem(list, func(item runtime.Object) error {
			o := item.(client.Object)
			if ref := metav1.GetControllerOf(o); ref != nil && strings.HasPrefix(ref.APIVersion, "seed.example.com/") {
				byOwner[ref.UID] = append(byOwner[ref.UID], ownedObject{kind, o.GetUID()})
			}
			return nil
		})).To(Succeed())
	}
	for _, objects := range byOwner {
		slices.SortFunc(objects, func(a, b ownedObject) int { return strings.Compare(a.kind, b.kind) })
	}
	return byOwner
}

// ownedObject is an object a custom resource controls.
type ownedObject struct {
	kind string
	uid  types.UID
}

// ownedWrites is what the operator's pods did to the objects it owns in a
// namespace, by resource and name, as the audit log tells it.
type ownedWrites struct {
	// made and updates count the creates and the other writes that
	// succeeded.
	made, updates map[string]int
	// writers are the pods that wrote each object, in turn: a pod appears
	// again only after another wrote the object.
	writers map[string][]string
	// fought are the objects a pod wrote again after another did, after
	// it: two versions putting back each other's writes.
	fought []string
}

// ownedWritesIn reads the writes of events, those of the operator's
// pods, to the objects in namespace other than custom resources and
// events.
func ownedWritesIn(events []testenv.AuditEvent, namespace string) ownedWrites {
	w := ownedWrites{made: map[string]int{}, updates: map[string]int{}, writers: map[string][]string{}}
	for _, e := range events {
		r := e.ObjectRef
		if r.Namespace != namespace || r.APIGroup == "seed.example.com" || r.Resource == "events" || !e.Writes() || e.Code() >= 300 {
			continue
		}
		object := r.Resource + "/" + r.Name
		if e.Code() == http.StatusCreated {
			w.made[object]++
			continue
		}
		w.updates[object]++
		pods := w.writers[object]
		if i := slices.Index(pods, e.Pod()); i >= 0 && i < len(pods)-1 {
			w.fought = append(w.fought, fmt.Sprintf("%s by %v then %s", object, pods, e.Pod()))
		}
		if len(pods) == 0 || pods[len(pods)-1] != e.Pod() {
			w.writers[object] = append(pods, e.Pod())
		}
	}
	return w
}

func sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
