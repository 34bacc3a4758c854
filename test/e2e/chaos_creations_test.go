//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// creations records, for the whole of a spec, the UID of every object the
// operator labels in a namespace, by kind and name, as watches see them.
// An object made twice has two UIDs, however many events were lost, and an
// informer's relist after an outage still sees the second one.
type creations struct {
	mu   sync.Mutex
	uids map[string]sets.Set[types.UID]
}

// ownedLists are the kinds of object the operator makes.
func ownedLists() []client.ObjectList {
	return []client.ObjectList{
		&appsv1.DeploymentList{}, &corev1.ServiceList{}, &batchv1.JobList{}, &batchv1.CronJobList{},
		&corev1.PersistentVolumeClaimList{}, &corev1.PodList{},
	}
}

// watchCreations starts watching namespace; the watches stop when the spec
// ends.
func watchCreations(ctx context.Context, namespace string) *creations {
	c := &creations{uids: map[string]sets.Set[types.UID]{}}
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = kube.LabelName }))
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    c.record,
		UpdateFunc: func(_, obj any) { c.record(obj) },
	}
	for _, informer := range []toolscache.SharedIndexInformer{
		factory.Apps().V1().Deployments().Informer(),
		factory.Core().V1().Services().Informer(),
		factory.Batch().V1().Jobs().Informer(),
		factory.Batch().V1().CronJobs().Informer(),
		factory.Core().V1().PersistentVolumeClaims().Informer(),
		factory.Core().V1().Pods().Informer(),
	} {
		_, err := informer.AddEventHandler(handler)
		Expect(err).NotTo(HaveOccurred())
	}
	stop := make(chan struct{})
	factory.Start(stop)
	DeferCleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		Expect(synced).To(BeTrue(), "the watch of %v in %s", informer, namespace)
	}
	return c
}

// record runs on the informers' goroutines, where a failure must reach
// Ginkgo rather than end the process.
func (c *creations) record(obj any) {
	defer GinkgoRecover()
	o, err := meta.Accessor(obj)
	Expect(err).NotTo(HaveOccurred())
	key := creationKey(obj, o)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.uids[key] == nil {
		c.uids[key] = sets.New[types.UID]()
	}
	c.uids[key].Insert(o.GetUID())
}

// creationKey names an object by its Go type, which the watches' objects
// and a typed list's items share, and its name.
func creationKey(obj any, o metav1.Object) string {
	return fmt.Sprintf("%T %s", obj, o.GetName())
}

// expectEachCreatedOnce waits until the watches have seen every object the
// operator labels in namespace now, then checks that no name had two UIDs.
func (c *creations) expectEachCreatedOnce(ctx context.Context, namespace string) {
	Eventually(ctx, func(g Gomega) {
		var unseen []string
		for _, list := range ownedLists() {
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(namespace), client.HasLabels{kube.LabelName})).To(Succeed())
			g.Expect(meta.EachListItem(list, func(item runtime.Object) error {
				o, err := meta.Accessor(item)
				if err != nil {
					return err
				}
				c.mu.Lock()
				defer c.mu.Unlock()
				if !c.uids[creationKey(item, o)].Has(o.GetUID()) {
					unseen = append(unseen, creationKey(item, o))
				}
				return nil
			})).To(Succeed())
		}
		g.Expect(unseen).To(BeEmpty(), "objects the watches have yet to see")
	}).Should(Succeed())

	c.mu.Lock()
	defer c.mu.Unlock()
	Expect(c.uids).NotTo(BeEmpty(), "the watches saw no object in %s", namespace)
	var twice []string
	for key, uids := range c.uids {
		if uids.Len() > 1 {
			twice = append(twice, fmt.Sprintf("%s (%d UIDs)", key, uids.Len()))
		}
	}
	Expect(twice).To(BeEmpty(), "objects created more than once, which nothing but the operator deleted")
}
