package demovolume

import (
	"errors"
	"strings"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("DemoVolume controller", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "demovolume")
	})

	key := func(name string) types.NamespacedName {
		return types.NamespacedName{Namespace: namespace, Name: name}
	}
	// create makes a DemoVolume of 1 GiB as a user would, changed by mutate,
	// and returns it as stored (defaults applied).
	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.DemoVolume)) *seedv1alpha1.DemoVolume {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec:       seedv1alpha1.DemoVolumeSpec{Name: "Data of " + name, Size: 1},
		}
		for _, m := range mutate {
			m(dv)
		}
		Expect(k8sClient.Create(ctx, dv)).To(Succeed())
		return dv
	}
	update := func(ctx SpecContext, name string, mutate func(*seedv1alpha1.DemoVolume)) {
		dv := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.Update(ctx, k8sClient, dv, mutate)
	}
	demoVolume := func(ctx SpecContext, g Gomega, name string) *seedv1alpha1.DemoVolume {
		dv := &seedv1alpha1.DemoVolume{}
		g.Expect(k8sClient.Get(ctx, key(name), dv)).To(Succeed())
		return dv
	}
	claimOf := func(ctx SpecContext, name string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{}
		testenv.Get(ctx, k8sClient, key(name), pvc)
		return pvc
	}
	request := func(pvc *corev1.PersistentVolumeClaim) string {
		return ptr.To(pvc.Spec.Resources.Requests[corev1.ResourceStorage]).String()
	}
	// setClaimStatus plays the PV controller and the volume resizer, which
	// envtest does not run.
	setClaimStatus := func(ctx SpecContext, name string, mutate func(*corev1.PersistentVolumeClaimStatus)) {
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key(name), pvc)).To(Succeed())
			mutate(&pvc.Status)
			g.Expect(k8sClient.Status().Update(ctx, pvc)).To(Succeed())
		}).Should(Succeed())
	}
	bind := func(ctx SpecContext, name, size string) { testenv.BindClaim(ctx, k8sClient, key(name), size) }
	// storageClass makes a storage class that nothing provisions from, and
	// that is not the default, so that specs running after it are unaffected.
	storageClass := func(ctx SpecContext, allowVolumeExpansion bool) string {
		sc := &storagev1.StorageClass{
			ObjectMeta:           metav1.ObjectMeta{GenerateName: "demovolume-"},
			Provisioner:          "example.com/nothing",
			AllowVolumeExpansion: ptr.To(allowVolumeExpansion),
		}
		Expect(k8sClient.Create(ctx, sc)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, sc)).To(Succeed()) })
		return sc.Name
	}
	expectCondition := func(ctx SpecContext, name, conditionType string, status metav1.ConditionStatus, reason string) {
		dv := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectCondition(ctx, k8sClient, dv, conditionType, status, reason)
	}
	expectReady := func(ctx SpecContext, name string, status metav1.ConditionStatus, reason string) {
		expectCondition(ctx, name, seedv1alpha1.ConditionReady, status, reason)
	}
	// expectReconcileFailed waits until Ready says the operator could not
	// apply the claim, with the API server's reason in its message.
	expectReconcileFailed := func(ctx SpecContext, name, message string) {
		expectReady(ctx, name, metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, name).Status.Conditions).To(ContainElement(And(
				HaveField("Type", seedv1alpha1.ConditionReady),
				HaveField("Message", ContainSubstring(message)),
			)))
		}).Should(Succeed())
	}
	expectEvent := func(ctx SpecContext, name, reason, note string) {
		dv := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectEvent(ctx, k8sClient, dv, "DemoVolume", reason, note)
	}
	// holderOf is the owner reference of the namespace, which holds every
	// claim and backup.
	holderOf := func(ctx SpecContext) metav1.OwnerReference {
		ns := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: namespace}, ns)).To(Succeed())
		return metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: ns.Name, UID: ns.UID}
	}
	expectGone := func(ctx SpecContext, name string) {
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, key(name), &seedv1alpha1.DemoVolume{})
		}).Should(Satisfy(apierrors.IsNotFound))
	}
	// expectHeld checks that the namespace holds a DemoVolume's claim,
	// beside the DemoVolume, and that the DemoVolume has no finalizer.
	expectHeld := func(ctx SpecContext, name string) {
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, name).Finalizers).To(BeEmpty())
			g.Expect(claimOf(ctx, name).OwnerReferences).To(ContainElement(And(
				HaveField("Kind", "Namespace"), HaveField("Name", namespace), HaveField("UID", holderOf(ctx).UID),
				HaveField("Controller", BeNil()), HaveField("BlockOwnerDeletion", BeNil()),
			)))
		}).Should(Succeed())
	}
	// expectKept waits until the claim of a deleted DemoVolume is released
	// and labelled, and checks that it is the one it had, bound to the same
	// volume.
	expectKept := func(ctx SpecContext, name string, before *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{}
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key(name), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(before.UID))
			g.Expect(pvc.DeletionTimestamp).To(BeNil())
			g.Expect(pvc.OwnerReferences).To(BeEmpty())
			g.Expect(pvc.Labels).To(HaveKeyWithValue(retainedLabel, "true"))
		}).Should(Succeed())
		Expect(pvc.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", name))
		Expect(pvc.Spec.VolumeName).To(Equal(before.Spec.VolumeName), "still bound to the volume with the data")
		return pvc
	}
	// expectDeletedWith checks that the operator deleted the claim of a
	// DemoVolume deleted with Delete: the garbage collector does not, as
	// the namespace holds it. No pvc-protection controller runs in
	// envtest, so the claim stays, being deleted.
	expectDeletedWith := func(ctx SpecContext, name string, before *corev1.PersistentVolumeClaim) {
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key(name), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(before.UID))
			g.Expect(pvc.DeletionTimestamp).NotTo(BeNil())
			g.Expect(pvc.Labels).NotTo(HaveKey(retainedLabel))
		}).Should(Succeed())
		expectEvent(ctx, name, reasonDeleted, "Deleted PersistentVolumeClaim "+name+", as reclaimPolicy Delete says")
	}
	// deleteClaim deletes a claim as someone would by hand. The
	// StorageObjectInUseProtection admission plugin gives every claim the
	// kubernetes.io/pvc-protection finalizer, which the pvc-protection
	// controller removes once no pod uses the claim. envtest runs no
	// controllers, so the test removes it instead.
	deleteClaim := func(ctx SpecContext, claim *corev1.PersistentVolumeClaim) {
		Expect(k8sClient.Delete(ctx, claim)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), pvc)
			if apierrors.IsNotFound(err) || pvc.UID != claim.UID {
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pvc.DeletionTimestamp).NotTo(BeNil())
			pvc.Finalizers = nil
			g.Expect(k8sClient.Update(ctx, pvc)).To(Succeed())
		}).Should(Succeed())
	}
	// refused tries an update the API server must refuse, and checks that
	// its message is the given one.
	refused := func(ctx SpecContext, name string, mutate func(*seedv1alpha1.DemoVolume), message string) {
		Eventually(ctx, func(g Gomega) {
			dv := demoVolume(ctx, g, name)
			mutate(dv)
			err := k8sClient.Update(ctx, dv)
			g.Expect(apierrors.IsConflict(err)).To(BeFalse(), "retry: the operator wrote the status meanwhile")
			g.Expect(err).To(MatchError(ContainSubstring(message)))
		}).Should(Succeed())
	}

	It("creates a claim owned by the DemoVolume and held by its namespace, and reports Ready once it is bound", func(ctx SpecContext) {
		dv := create(ctx, "data")

		pvc := claimOf(ctx, "data")
		Expect(pvc.OwnerReferences).To(ConsistOf(And(
			HaveField("UID", dv.UID), HaveField("Kind", "DemoVolume"), HaveField("Name", "data"),
			HaveField("Controller", HaveValue(BeTrue())), HaveField("BlockOwnerDeletion", HaveValue(BeTrue())),
		), Equal(holderOf(ctx))))
		Expect(pvc.Labels).To(Equal(map[string]string{
			"app.kubernetes.io/name":       "demovolume",
			"app.kubernetes.io/instance":   "data",
			"app.kubernetes.io/managed-by": "seed-operator",
		}))
		Expect(request(pvc)).To(Equal("1Gi"))
		Expect(pvc.Spec.AccessModes).To(ConsistOf(corev1.ReadWriteOnce), "the API server defaults accessModes")
		// envtest has no default storage class for the admission plugin to
		// fill in, so an unset class stays unset.
		Expect(pvc.Spec.StorageClassName).To(BeNil())

		expectEvent(ctx, "data", "Created", "PersistentVolumeClaim")
		expectReady(ctx, "data", metav1.ConditionFalse, reasonPending)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBound, metav1.ConditionFalse, reasonPending)
		Eventually(ctx, func(g Gomega) {
			dv := demoVolume(ctx, g, "data")
			g.Expect(dv.Finalizers).To(BeEmpty(), "nothing holds its namespace's deletion")
			g.Expect(dv.Spec.ReclaimPolicy).To(Equal(seedv1alpha1.ReclaimRetain))
			g.Expect(dv.Status.Name).To(Equal("Data of data"))
			g.Expect(dv.Status.ClaimName).To(Equal("data"))
			g.Expect(dv.Status.Phase).To(Equal(corev1.ClaimPending))
			g.Expect(dv.Status.Capacity).To(BeEmpty())
		}).Should(Succeed())

		By("the PV controller binding the claim")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBound, metav1.ConditionTrue, reasonBound)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeResizing, metav1.ConditionFalse, reasonAtSize)
		Eventually(ctx, func(g Gomega) {
			dv := demoVolume(ctx, g, "data")
			g.Expect(dv.Status.Phase).To(Equal(corev1.ClaimBound))
			g.Expect(dv.Status.Capacity).To(Equal("1Gi"))
			g.Expect(dv.Status.ObservedGeneration).To(Equal(dv.Generation))
		}).Should(Succeed())

		By("renaming the volume, which only the status shows")
		bound := claimOf(ctx, "data")
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Name = "Renamed" })
		Eventually(ctx, func(g Gomega) {
			dv := demoVolume(ctx, g, "data")
			g.Expect(dv.Status.Name).To(Equal("Renamed"))
			g.Expect(dv.Status.ObservedGeneration).To(Equal(dv.Generation))
		}).Should(Succeed())
		Expect(claimOf(ctx, "data").ResourceVersion).To(Equal(bound.ResourceVersion), "the claim does not carry the name")
	})

	It("asks for the storage class and access modes of the spec", func(ctx SpecContext) {
		class := storageClass(ctx, false)
		create(ctx, "shared", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.Size = 20
			dv.Spec.StorageClassName = ptr.To(class)
			dv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany}
		})

		pvc := claimOf(ctx, "shared")
		Expect(pvc.Spec.StorageClassName).To(HaveValue(Equal(class)))
		Expect(pvc.Spec.AccessModes).To(ConsistOf(corev1.ReadWriteMany, corev1.ReadOnlyMany))
		Expect(request(pvc)).To(Equal("20Gi"))
	})

	It("grows the claim when size grows, and reports Resizing until the volume has grown", func(ctx SpecContext) {
		// The API server lets a claim grow only when it is bound and its
		// storage class allows volume expansion.
		class := storageClass(ctx, true)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 3 })
		Eventually(ctx, func(g Gomega) {
			g.Expect(request(claimOf(ctx, "data"))).To(Equal("3Gi"))
		}).Should(Succeed())
		expectEvent(ctx, "data", "Updated", "PersistentVolumeClaim")
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeResizing, metav1.ConditionTrue, reasonResizing)
		expectReady(ctx, "data", metav1.ConditionFalse, reasonResizing)
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, "data").Status.Capacity).To(Equal("1Gi"), "the volume has not grown yet")
		}).Should(Succeed())

		By("the volume grown, its file system waiting for a pod to mount it")
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) {
			st.Conditions = []corev1.PersistentVolumeClaimCondition{{
				Type: corev1.PersistentVolumeClaimFileSystemResizePending, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.Now(),
			}}
		})
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeResizing, metav1.ConditionTrue,
			string(corev1.PersistentVolumeClaimFileSystemResizePending))

		By("the resize done")
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) {
			st.Conditions = nil
			st.Capacity = capacity("3Gi")
		})
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeResizing, metav1.ConditionFalse, reasonAtSize)
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, "data").Status.Capacity).To(Equal("3Gi"))
		}).Should(Succeed())
	})

	It("reports a growth the API server refuses, and applies it once the claim can grow", func(ctx SpecContext) {
		class := storageClass(ctx, true)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		claimOf(ctx, "data")
		expectReady(ctx, "data", metav1.ConditionFalse, reasonPending)

		// Until the claim is bound, the API server keeps its whole spec
		// as it was created, request included.
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		expectReconcileFailed(ctx, "data", "spec is immutable after creation")
		expectEvent(ctx, "data", "ApplyFailed", "Could not apply PersistentVolumeClaim data")
		Expect(request(claimOf(ctx, "data"))).To(Equal("1Gi"))

		By("the claim bound")
		bind(ctx, "data", "1Gi")
		Eventually(ctx, func(g Gomega) {
			g.Expect(request(claimOf(ctx, "data"))).To(Equal("2Gi"))
		}).Should(Succeed())
		expectReady(ctx, "data", metav1.ConditionFalse, reasonResizing)
	})

	It("reports a storage class that does not allow volume expansion", func(ctx SpecContext) {
		class := storageClass(ctx, false)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		expectReconcileFailed(ctx, "data", "the storageclass that provisions the pvc must support resize")
		Expect(request(claimOf(ctx, "data"))).To(Equal("1Gi"))
	})

	It("refuses to shrink the volume or to change its storage class or access modes", func(ctx SpecContext) {
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.Size = 5
			dv.Spec.StorageClassName = ptr.To("fast")
		})
		create(ctx, "default-class")
		claimOf(ctx, "data")
		claimOf(ctx, "default-class")

		refused(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 4 },
			"size cannot shrink: a PersistentVolumeClaim can only grow")
		refused(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To("slow") },
			"storageClassName is immutable: a claim cannot move to another storage class")
		refused(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = nil },
			"storageClassName is immutable: a claim cannot move to another storage class")
		refused(ctx, "default-class", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To("fast") },
			"storageClassName is immutable: a claim cannot move to another storage class")
		refused(ctx, "data", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
		}, "accessModes are immutable once the claim exists")
		refused(ctx, "data", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.AccessModes = append(dv.Spec.AccessModes, corev1.ReadOnlyMany)
		}, "accessModes are immutable once the claim exists")

		Eventually(ctx, func(g Gomega) {
			dv := demoVolume(ctx, g, "data")
			g.Expect(dv.Spec.Size).To(BeEquivalentTo(5))
			g.Expect(dv.Spec.StorageClassName).To(HaveValue(Equal("fast")))
			g.Expect(dv.Spec.AccessModes).To(ConsistOf(corev1.ReadWriteOnce))
		}).Should(Succeed())
		pvc := claimOf(ctx, "data")
		Expect(request(pvc)).To(Equal("5Gi"))
		Expect(pvc.Spec.StorageClassName).To(HaveValue(Equal("fast")))

		By("accepting a growth and a rename")
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.Size = 6
			dv.Spec.Name = "Bigger"
		})
	})

	It("puts the claim's labels back when someone edits them, and leaves other labels and annotations alone", func(ctx SpecContext) {
		create(ctx, "data")
		claimOf(ctx, "data")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

		// Without its managed-by label, the claim drops out of the
		// operator's cache, which must still find and repair it.
		testenv.Update(ctx, k8sClient, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
			func(pvc *corev1.PersistentVolumeClaim) {
				pvc.Labels["app.kubernetes.io/instance"] = "something-else"
				delete(pvc.Labels, "app.kubernetes.io/managed-by")
				pvc.Labels["team"] = "a"
				// Storage provisioners, the scheduler and backup tools
				// annotate claims; what they write is theirs, not drift.
				metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, "backup.example.com/schedule", "daily")
			})

		Eventually(ctx, func(g Gomega) {
			g.Expect(claimOf(ctx, "data").Labels).To(Equal(map[string]string{
				"app.kubernetes.io/name":       "demovolume",
				"app.kubernetes.io/instance":   "data",
				"app.kubernetes.io/managed-by": "seed-operator",
				"team":                         "a",
			}))
		}).Should(Succeed())
		Expect(claimOf(ctx, "data").Annotations).To(HaveKeyWithValue("backup.example.com/schedule", "daily"))
		expectEvent(ctx, "data", "Repaired", "PersistentVolumeClaim")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
	})

	It("takes back a request someone changed, as far as the API server allows", func(ctx SpecContext) {
		class := storageClass(ctx, true)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		bind(ctx, "data", "1Gi")
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		expectReady(ctx, "data", metav1.ConditionFalse, reasonResizing)
		Eventually(ctx, func(g Gomega) {
			g.Expect(request(claimOf(ctx, "data"))).To(Equal("2Gi"))
		}).Should(Succeed())

		editRequest := func(size string) {
			testenv.Update(ctx, k8sClient, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
				func(pvc *corev1.PersistentVolumeClaim) {
					pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
				})
		}

		By("someone growing the claim while it grows")
		// A request can go back down as long as it stays above the
		// capacity, to recover from an expansion that cannot finish.
		editRequest("5Gi")
		Eventually(ctx, func(g Gomega) {
			g.Expect(request(claimOf(ctx, "data"))).To(Equal("2Gi"))
		}).Should(Succeed())
		expectEvent(ctx, "data", "Repaired", "PersistentVolumeClaim")

		By("someone growing the claim once it has grown")
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) { st.Capacity = capacity("2Gi") })
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		editRequest("5Gi")
		// A claim never goes below its capacity, so the operator cannot put
		// it back, and says so.
		expectReconcileFailed(ctx, "data", "spec.resources.requests.storage")
		Expect(request(claimOf(ctx, "data"))).To(Equal("5Gi"))

		By("the user growing the DemoVolume to match")
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 5 })
		expectReady(ctx, "data", metav1.ConditionFalse, reasonResizing)
	})

	It("recreates a deleted claim", func(ctx SpecContext) {
		create(ctx, "data")
		first := claimOf(ctx, "data")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

		Expect(first.Finalizers).To(ContainElement("kubernetes.io/pvc-protection"))
		deleteClaim(ctx, first)

		Eventually(ctx, func(g Gomega) {
			g.Expect(claimOf(ctx, "data").UID).NotTo(Equal(first.UID))
		}).Should(Succeed())
		expectEvent(ctx, "data", "Recreated", "PersistentVolumeClaim")
		// The new claim has no volume yet.
		expectReady(ctx, "data", metav1.ConditionFalse, reasonPending)
		pvc := claimOf(ctx, "data")
		Expect(request(pvc)).To(Equal("1Gi"))
		Expect(pvc.OwnerReferences).To(ConsistOf(HaveField("Name", "data"), Equal(holderOf(ctx))))
	})

	It("makes nothing and writes nothing once its namespace is being deleted", func(ctx SpecContext) {
		dv := create(ctx, "data")
		claim := claimOf(ctx, "data")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		testenv.NamespaceTerminating{
			Owner: dv, Kind: "PersistentVolumeClaim",
			Remove: func() { deleteClaim(ctx, claim) },
		}.Expect(ctx, k8sClient)
	})

	It("keeps the claim, released and labelled, when a DemoVolume with Retain is deleted", func(ctx SpecContext) {
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		claimOf(ctx, "data")
		bind(ctx, "data", "2Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		before := claimOf(ctx, "data")
		dv := &seedv1alpha1.DemoVolume{}
		Expect(k8sClient.Get(ctx, key("data"), dv)).To(Succeed())

		Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
		expectGone(ctx, "data")

		pvc := expectKept(ctx, "data", before)
		Expect(request(pvc)).To(Equal("2Gi"))
		Expect(pvc.Status.Phase).To(Equal(corev1.ClaimBound))
		expectEvent(ctx, "data", reasonRetained, "Kept PersistentVolumeClaim data and its data")

		By("the claim staying as it is")
		Consistently(ctx, func(g Gomega) {
			kept := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key("data"), kept)).To(Succeed())
			g.Expect(kept.ResourceVersion).To(Equal(pvc.ResourceVersion))
		}).WithTimeout(time.Second).Should(Succeed())
	})

	It("sets a finalizer from a copy the API server has moved past, as a cache that is behind hands over", func(ctx SpecContext) {
		const finalizer = "seed.example.com/test"
		stale := create(ctx, "stale")
		update(ctx, "stale", func(dv *seedv1alpha1.DemoVolume) { dv.Labels = map[string]string{"edited": "true"} })

		Expect(kube.SetFinalizer(ctx, reconciler.Client, reconciler.Applier.APIReader, stale, finalizer, true)).To(Succeed())
		Expect(demoVolume(ctx, Default, "stale").Finalizers).To(ContainElement(finalizer))
		Expect(demoVolume(ctx, Default, "stale").Labels).To(HaveKeyWithValue("edited", "true"), "nothing else written back")

		update(ctx, "stale", func(dv *seedv1alpha1.DemoVolume) { dv.Labels["edited"] = "again" })
		Expect(kube.SetFinalizer(ctx, reconciler.Client, reconciler.Applier.APIReader, stale, finalizer, false)).To(Succeed())
		Expect(demoVolume(ctx, Default, "stale").Finalizers).NotTo(ContainElement(finalizer))
	})

	It("keeps a claim that could not grow when a DemoVolume with Retain is deleted", func(ctx SpecContext) {
		class := storageClass(ctx, false)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		expectReady(ctx, "data", metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)
		before := claimOf(ctx, "data")

		// Releasing the claim must not ask again for the size the API
		// server refuses, or it could never be kept.
		Expect(k8sClient.Delete(ctx, demoVolume(ctx, Default, "data"))).To(Succeed())
		expectGone(ctx, "data")
		pvc := expectKept(ctx, "data", before)
		Expect(request(pvc)).To(Equal("1Gi"))
		expectEvent(ctx, "data", reasonRetained, "Kept PersistentVolumeClaim data")
	})

	It("keeps a claim missing from the operator's cache when a DemoVolume with Retain is deleted", func(ctx SpecContext) {
		create(ctx, "data")
		claimOf(ctx, "data")
		// The claim cannot grow before it is bound, so the operator cannot
		// put back the label the next step removes.
		update(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
		expectReady(ctx, "data", metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)

		// The cache holds only claims labelled as managed by the operator,
		// as it might also miss a claim created moments before.
		testenv.Update(ctx, k8sClient, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
			func(pvc *corev1.PersistentVolumeClaim) { delete(pvc.Labels, "app.kubernetes.io/managed-by") })
		Eventually(ctx, func() error {
			return reconciler.Get(ctx, key("data"), &corev1.PersistentVolumeClaim{})
		}).Should(Satisfy(apierrors.IsNotFound))

		before := claimOf(ctx, "data")
		Expect(k8sClient.Delete(ctx, demoVolume(ctx, Default, "data"))).To(Succeed())
		expectGone(ctx, "data")
		pvc := expectKept(ctx, "data", before)
		Expect(pvc.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
		Expect(request(pvc)).To(Equal("1Gi"))
	})

	It("adopts a retained claim again when a DemoVolume of the same name is created, which takes delete on claims", Serial, func(ctx SpecContext) {
		first := create(ctx, "data")
		before := claimOf(ctx, "data")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		expectGone(ctx, "data")
		Eventually(ctx, func(g Gomega) {
			g.Expect(claimOf(ctx, "data").Labels).To(HaveKeyWithValue(retainedLabel, "true"))
		}).Should(Succeed())

		By("refused without delete on claims: OwnerReferencesPermissionEnforcement asks for it to set an owner reference on one")
		restore := env.WithoutGrant(ctx, "", "persistentvolumeclaims", "delete")
		second := create(ctx, "data")
		Expect(second.UID).NotTo(Equal(first.UID))
		Eventually(ctx, func(g Gomega) {
			g.Expect(meta.FindStatusCondition(demoVolume(ctx, g, "data").Status.Conditions, seedv1alpha1.ConditionReady)).To(And(
				HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", seedv1alpha1.ReasonReconcileFailed),
				HaveField("Message", ContainSubstring("cannot set an ownerRef on a resource you can't delete")),
			))
		}).Should(Succeed())
		restore(ctx)
		Eventually(ctx, func(g Gomega) {
			pvc := claimOf(ctx, "data")
			g.Expect(pvc.UID).To(Equal(before.UID), "the same claim, with the data on its volume")
			g.Expect(pvc.OwnerReferences).To(ConsistOf(And(
				HaveField("UID", second.UID), HaveField("Controller", HaveValue(BeTrue())),
			), Equal(holderOf(ctx))))
			g.Expect(pvc.Labels).NotTo(HaveKey(retainedLabel))
		}).Should(Succeed())
		// Still bound to its volume, so Ready straight away.
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		expectHeld(ctx, "data")
	})

	It("adopts a retained claim grown past its size, and keeps that size", func(ctx SpecContext) {
		class := storageClass(ctx, true)
		first := create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		expectGone(ctx, "data")

		By("the retained claim grown to 3 GiB, as the deleted DemoVolume's autoGrow, or someone by hand, would")
		testenv.Update(ctx, k8sClient, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
			func(pvc *corev1.PersistentVolumeClaim) {
				pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("3Gi")
			})
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) { st.Capacity = capacity("3Gi") })

		By("a DemoVolume of the same name and 1 GiB: the claim is its, at 3 GiB, not asked to shrink")
		second := create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.StorageClassName = ptr.To(class) })
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
			g.Expect(metav1.IsControlledBy(pvc, second)).To(BeTrue())
		}).Should(Succeed())
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		Expect(request(claimOf(ctx, "data"))).To(Equal("3Gi"))
	})

	It("deletes the claim with reclaimPolicy Delete", func(ctx SpecContext) {
		dv := create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete })
		expectReady(ctx, "data", metav1.ConditionFalse, reasonPending)
		expectHeld(ctx, "data")
		before := claimOf(ctx, "data")

		Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
		expectGone(ctx, "data")
		expectDeletedWith(ctx, "data", before)
		Consistently(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, dv, reasonDeleted) }).
			WithTimeout(3*time.Second).Should(Equal(int32(1)), "one deletion, acted on once")
	})

	// leftClaim makes a claim as a deleted DemoVolume named name leaves it,
	// controlled by owner (none: the garbage collector dropped the
	// reference) and held by the namespace.
	leftClaim := func(ctx SpecContext, name string, owner *metav1.OwnerReference) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: kube.Labels(kind, name),
				OwnerReferences: []metav1.OwnerReference{holderOf(ctx)}},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: capacity("1Gi")},
			},
		}
		if owner != nil {
			pvc.OwnerReferences = append(pvc.OwnerReferences, *owner)
		}
		Expect(k8sClient.Create(ctx, pvc)).To(Succeed())
		return pvc
	}

	It("keeps what a DemoVolume deleted unseen left, and says it could not read its policy", func(ctx SpecContext) {
		By("a claim whose DemoVolume went while the operator was away, and the garbage collector dropped its reference")
		left := leftClaim(ctx, "unseen", nil)
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key("unseen"), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(left.UID))
			g.Expect(pvc.DeletionTimestamp).To(BeNil(), "data is not deleted on a guess")
			g.Expect(pvc.OwnerReferences).To(BeEmpty())
			g.Expect(pvc.Labels).To(HaveKeyWithValue(retainedLabel, "true"))
		}).Should(Succeed())
		expectEvent(ctx, "unseen", reasonRetained,
			"Kept PersistentVolumeClaim unseen and its data, labelled seed.example.com/retained=true: the operator did not see the DemoVolume deleted")
	})

	It("acts on what a DemoVolume left before one of the same name takes it", func(ctx SpecContext) {
		earlier := &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: "again", Namespace: namespace, UID: "earlier"}}
		left := leftClaim(ctx, "again", metav1.NewControllerRef(earlier, gvk))
		dv := create(ctx, "again")
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key("again"), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(left.UID), "the same claim, with its data")
			g.Expect(pvc.OwnerReferences).To(ConsistOf(HaveField("UID", dv.UID), Equal(holderOf(ctx))))
		}).Should(Succeed())
		expectEvent(ctx, "again", reasonRetained, "Kept PersistentVolumeClaim again")
	})

	It("drops the finalizer earlier releases gave, which takes patch on DemoVolumes, and acts on the policy once a DemoVolume another finalizer held goes", Serial, func(ctx SpecContext) {
		const held = "example.com/held"
		legacy := func(dv *seedv1alpha1.DemoVolume) { dv.Finalizers = []string{claimFinalizer, held} }
		By("kept without patch on DemoVolumes, which removing it takes")
		restore := env.WithoutGrant(ctx, seedv1alpha1.GroupVersion.Group, "demovolumes", "patch")
		for _, name := range []string{"live", "deleted"} {
			create(ctx, name, legacy)
		}
		Consistently(ctx, func(g Gomega) []string { return demoVolume(ctx, g, "live").Finalizers }).
			WithTimeout(2 * time.Second).Should(ContainElement(claimFinalizer))
		restore(ctx)
		for _, name := range []string{"live", "deleted"} {
			Eventually(ctx, func(g Gomega) {
				g.Expect(demoVolume(ctx, g, name).Finalizers).To(ConsistOf(held))
			}).Should(Succeed())
		}
		expectReady(ctx, "live", metav1.ConditionFalse, reasonPending)
		for _, name := range []string{"live", "deleted"} {
			Eventually(ctx, func(g Gomega) {
				g.Expect(claimOf(ctx, name).OwnerReferences).To(ContainElement(Equal(holderOf(ctx))))
			}).Should(Succeed())
		}
		before := claimOf(ctx, "deleted")

		By("deleting one held by another finalizer, then letting it go")
		Expect(k8sClient.Delete(ctx, demoVolume(ctx, Default, "deleted"))).To(Succeed())
		update(ctx, "deleted", func(dv *seedv1alpha1.DemoVolume) { dv.Finalizers = nil })
		expectGone(ctx, "deleted")
		expectKept(ctx, "deleted", before)
		update(ctx, "live", func(dv *seedv1alpha1.DemoVolume) { dv.Finalizers = nil })
	})

	It("acts on the reclaim policy a DemoVolume has when it is deleted, switched just before", func(ctx SpecContext) {
		toDelete := create(ctx, "retained-first", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimRetain })
		toRetain := create(ctx, "deleted-first", func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete })
		for _, name := range []string{toDelete.Name, toRetain.Name} {
			claimOf(ctx, name)
			bind(ctx, name, "1Gi")
			expectReady(ctx, name, metav1.ConditionTrue, reasonBound)
			expectHeld(ctx, name)
		}
		before := claimOf(ctx, toRetain.Name)
		deleted := claimOf(ctx, toDelete.Name)

		// Deleted straight after the switch: the operator may not have
		// reconciled it, the last state its watch delivers has it.
		update(ctx, toDelete.Name, func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete })
		update(ctx, toRetain.Name, func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimRetain })
		Expect(k8sClient.Delete(ctx, toDelete)).To(Succeed())
		Expect(k8sClient.Delete(ctx, toRetain)).To(Succeed())
		expectGone(ctx, toDelete.Name)
		expectGone(ctx, toRetain.Name)

		expectDeletedWith(ctx, toDelete.Name, deleted)
		expectKept(ctx, toRetain.Name, before)
	})

	It("writes nothing when a reconcile finds nothing changed", func(ctx SpecContext) {
		create(ctx, "data")
		claimOf(ctx, "data")
		bind(ctx, "data", "1Gi")
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

		versions := func(g Gomega) []string {
			dv, pvc := &seedv1alpha1.DemoVolume{}, &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, key("data"), dv)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
			return []string{dv.ResourceVersion, pvc.ResourceVersion}
		}
		// The manager's cache must have caught up with the writes above
		// before a reconcile can find nothing to do.
		var before []string
		Eventually(ctx, func(g Gomega) {
			before = versions(g)
			dv, pvc := &seedv1alpha1.DemoVolume{}, &corev1.PersistentVolumeClaim{}
			g.Expect(reconciler.Get(ctx, key("data"), dv)).To(Succeed())
			g.Expect(reconciler.Get(ctx, key("data"), pvc)).To(Succeed())
			g.Expect([]string{dv.ResourceVersion, pvc.ResourceVersion}).To(Equal(before))
		}).Should(Succeed())

		dv, pvc := &seedv1alpha1.DemoVolume{}, &corev1.PersistentVolumeClaim{}
		Expect(k8sClient.Get(ctx, key("data"), dv)).To(Succeed())
		Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
		Expect(apply.UpToDate(desiredClaim(dv, holderOf(ctx), ""), pvc)).To(BeTrue(), "the claim is as applied: no apply is sent")
		testenv.ExpectCachedUpToDate(ctx, reconciler, desiredClaim(dv, holderOf(ctx), ""), &corev1.PersistentVolumeClaim{})

		for range 3 {
			Expect(reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: key("data")})).To(Equal(ctrl.Result{}))
		}
		Expect(versions(Default)).To(Equal(before))
	})

	It("accepts the longest name it allows", func(ctx SpecContext) {
		name := strings.Repeat("d", 63)
		create(ctx, name)
		Expect(claimOf(ctx, name).Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", name))
	})

	Context("with backups", func() {
		// csiClass makes a storage class of a driver, and, unless no
		// default is wanted, the driver's default VolumeSnapshotClass.
		csiClass := func(ctx SpecContext, withDefault bool) string {
			// A driver of the class's own, whose default snapshot class no
			// other's interferes with.
			name := "csi-" + rand.String(5)
			sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: name + ".example.com"}
			Expect(k8sClient.Create(ctx, sc)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, sc)).To(Succeed()) })
			if withDefault {
				vsc := &snapshotv1.VolumeSnapshotClass{
					ObjectMeta: metav1.ObjectMeta{Name: sc.Name, Annotations: map[string]string{isDefaultSnapshotClass: "true"}},
					Driver:     sc.Provisioner, DeletionPolicy: snapshotv1.VolumeSnapshotContentDelete,
				}
				Expect(k8sClient.Create(ctx, vsc)).To(Succeed())
				DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, vsc)).To(Succeed()) })
			}
			return sc.Name
		}
		backedUp := func(class string, mutate ...func(*seedv1alpha1.DemoVolumeBackup)) func(*seedv1alpha1.DemoVolume) {
			return func(dv *seedv1alpha1.DemoVolume) {
				dv.Spec.StorageClassName = ptr.To(class)
				dv.Spec.Backup = &seedv1alpha1.DemoVolumeBackup{Keep: 2}
				for _, m := range mutate {
					m(dv.Spec.Backup)
				}
			}
		}
		requestBackup := func(ctx SpecContext, name, request string) {
			update(ctx, name, func(dv *seedv1alpha1.DemoVolume) {
				metav1.SetMetaDataAnnotation(&dv.ObjectMeta, seedv1alpha1.BackupAnnotation, request)
			})
		}
		backupsOf := func(ctx SpecContext, g Gomega, name string) []string {
			list := &snapshotv1.VolumeSnapshotList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
			var names []string
			for _, b := range list.Items {
				if b.Spec.Source.PersistentVolumeClaimName != nil && *b.Spec.Source.PersistentVolumeClaimName == name {
					names = append(names, b.Name)
				}
			}
			return names
		}
		ready := func(ctx SpecContext, backupName, size string) {
			testenv.ReadySnapshot(ctx, k8sClient, key(backupName), size)
		}

		// recoverable makes "data", bound, with restoreOnLoss and a ready
		// backup, whose name it returns.
		recoverable := func(ctx SpecContext) (*seedv1alpha1.DemoVolume, string) {
			dv := create(ctx, "data", backedUp(csiClass(ctx, true), func(b *seedv1alpha1.DemoVolumeBackup) { b.RestoreOnLoss = true }))
			bind(ctx, "data", "1Gi")
			requestBackup(ctx, "data", "1")
			backupName := backup.RequestedName(dv.Name, "1")
			Eventually(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).Should(ContainElement(backupName))
			ready(ctx, backupName, "1Gi")
			// Seen ready by the operator, from its cache, as a restore is.
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionTrue, reasonBackupReady)
			return dv, backupName
		}
		// expectRestored waits for the claim of "data" made in place of old
		// from backup, with restoreOnLoss.
		expectRestored := func(ctx SpecContext, old *corev1.PersistentVolumeClaim, backupName string) {
			Eventually(ctx, func(g Gomega) {
				pvc := &corev1.PersistentVolumeClaim{}
				g.Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
				g.Expect(pvc.UID).NotTo(Equal(old.UID))
				g.Expect(backupSource(pvc)).To(Equal(backupName))
			}).Should(Succeed())
			expectEvent(ctx, "data", reasonRestoredOnLoss, "from backup "+backupName)
		}
		// deleteAndExpectRestored deletes the claim of "data", as someone
		// would, and waits for the one restoreOnLoss makes from backup.
		deleteAndExpectRestored := func(ctx SpecContext, backupName string) {
			old := claimOf(ctx, "data")
			deleteClaim(ctx, old)
			expectRestored(ctx, old, backupName)
		}

		It("takes a backup on request, of the claim, in the driver's default class, and says when it is ready", func(ctx SpecContext) {
			class := csiClass(ctx, true)
			dv := create(ctx, "data", backedUp(class))
			bind(ctx, "data", "1Gi")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonNoBackupYet)

			requestBackup(ctx, "data", "first")
			name := backup.RequestedName(dv.Name, "first")
			snapshot := &snapshotv1.VolumeSnapshot{}
			Eventually(ctx, func() error { return k8sClient.Get(ctx, key(name), snapshot) }).Should(Succeed())
			Expect(snapshot.Spec.Source.PersistentVolumeClaimName).To(HaveValue(Equal("data")))
			Expect(snapshot.Spec.VolumeSnapshotClassName).To(HaveValue(Equal(class)))
			Expect(metav1.IsControlledBy(snapshot, demoVolume(ctx, Default, "data"))).To(BeTrue())
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonBackupInProgress)
			expectEvent(ctx, "data", reasonBackupTaken, "Took backup "+name)

			ready(ctx, name, "1Gi")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionTrue, reasonBackupReady)
			Eventually(ctx, func(g Gomega) {
				status := demoVolume(ctx, g, "data").Status
				g.Expect(status.LastBackupRequest).To(Equal("first"))
				g.Expect(status.Backups).To(ConsistOf(And(HaveField("Name", name), HaveField("ReadyToUse", true), HaveField("Size", "1Gi"))))
			}).Should(Succeed())
			Consistently(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).WithTimeout(time.Second).
				Should(ConsistOf(name), "one backup per request")
		})

		It("keeps the newest backups, and never the newest ready one", func(ctx SpecContext) {
			class := csiClass(ctx, true)
			dv := create(ctx, "data", backedUp(class))
			bind(ctx, "data", "1Gi")
			requests := []string{"1", "2", "3"}
			names := make([]string, 0, len(requests))
			for _, request := range requests {
				requestBackup(ctx, "data", request)
				names = append(names, backup.RequestedName(dv.Name, request))
				Eventually(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).Should(ContainElement(names[len(names)-1]))
				if request == "1" {
					ready(ctx, names[0], "1Gi")
				}
				// Backups are told apart by their age, in seconds.
				time.Sleep(1100 * time.Millisecond)
			}
			Consistently(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).WithTimeout(2*time.Second).
				Should(ConsistOf(names), "the oldest is the only ready one: kept")
			ready(ctx, names[2], "1Gi")
			Eventually(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).Should(ConsistOf(names[1], names[2]))
		})

		It("takes no backup without a snapshot class, and says why", func(ctx SpecContext) {
			create(ctx, "data", backedUp(csiClass(ctx, false)))
			bind(ctx, "data", "1Gi")
			requestBackup(ctx, "data", "1")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonNoSnapshotClass)
			create(ctx, "named", backedUp(csiClass(ctx, true), func(b *seedv1alpha1.DemoVolumeBackup) { b.VolumeSnapshotClassName = ptr.To("absent") }))
			bind(ctx, "named", "1Gi")
			expectCondition(ctx, "named", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonNoSnapshotClass)
			Consistently(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).WithTimeout(time.Second).Should(BeEmpty())
		})

		It("stops trying to take a backup once its namespace is being deleted", func(ctx SpecContext) {
			create(ctx, "data", backedUp(csiClass(ctx, true)))
			bind(ctx, "data", "1Gi")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonNoBackupYet)
			refused := map[string]string{"kind": "VolumeSnapshot", "reason": "NamespaceTerminating"}
			refusedBefore := testenv.Counted("seed_owned_object_refusals_total", refused)

			// envtest runs no namespace controller: the namespace stays
			// Terminating, with the DemoVolume in it, and refuses new objects.
			Expect(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
			requestBackup(ctx, "data", "late")
			Eventually(ctx, func() float64 { return testenv.Counted("seed_owned_object_refusals_total", refused) }).
				Should(BeNumerically(">", refusedBefore), "the backup's create refused")
			requestBackup(ctx, "data", "later")
			// A failure returned to the workqueue would come back within
			// milliseconds, then ever more slowly, until the namespace is
			// gone, each time refused again; and the DemoVolume's next
			// reconcile, whatever brings it, sends nothing more.
			Consistently(ctx, func() float64 {
				return testenv.Counted("seed_owned_object_refusals_total", refused)
			}, 3*time.Second).Should(Equal(refusedBefore + 1))
			Expect(backupsOf(ctx, Default, "data")).To(BeEmpty())
		})

		It("leaves a user's VolumeSnapshot of a backup's name alone, and takes the backup once it is gone", func(ctx SpecContext) {
			class := csiClass(ctx, true)
			requested := func() *seedv1alpha1.DemoVolume {
				dv := &seedv1alpha1.DemoVolume{
					ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace, Annotations: map[string]string{seedv1alpha1.BackupAnnotation: "1"}},
					Spec:       seedv1alpha1.DemoVolumeSpec{Name: "Data", Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete},
				}
				backedUp(class)(dv)
				return dv
			}
			testenv.NameConflict{
				Theirs: &snapshotv1.VolumeSnapshot{
					ObjectMeta: metav1.ObjectMeta{Name: backup.RequestedName(requested().Name, "1"), Namespace: namespace},
					Spec:       snapshotv1.VolumeSnapshotSpec{Source: snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To("other")}},
				},
				Owner:     func() kube.Object { return requested() },
				OwnerKind: "DemoVolume",
				Start:     func(kube.Object) { bind(ctx, "data", "1Gi") },
				Condition: seedv1alpha1.DemoVolumeBackedUp,
				Reason:    reasonBackupConflict,
				// No pvc-protection controller runs in envtest.
				Free:    func(obj client.Object) { obj.SetFinalizers(nil) },
				Collect: []client.ObjectList{&corev1.PersistentVolumeClaimList{}},
			}.Expect(ctx, k8sClient)
		})

		It("leaves alone a VolumeSnapshot of the backup's name that is not the DemoVolume's, which takes get on VolumeSnapshots", Serial, func(ctx SpecContext) {
			class := csiClass(ctx, true)
			dv := create(ctx, "data", backedUp(class))
			theirs := &snapshotv1.VolumeSnapshot{
				ObjectMeta: metav1.ObjectMeta{Name: backup.RequestedName(dv.Name, "1"), Namespace: namespace},
				Spec:       snapshotv1.VolumeSnapshotSpec{Source: snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To("other")}},
			}
			Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
			bind(ctx, "data", "1Gi")
			// The cache holds only what the operator made: it reads the
			// snapshot in its way from the API server.
			restore := env.WithoutGrant(ctx, snapshotAPIGroup, "volumesnapshots", "get")
			requestBackup(ctx, "data", "1")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonNoBackupYet)
			Consistently(ctx, func(g Gomega) string {
				return meta.FindStatusCondition(demoVolume(ctx, g, "data").Status.Conditions, seedv1alpha1.DemoVolumeBackedUp).Reason
			}).WithTimeout(2*time.Second).Should(Equal(reasonNoBackupYet), "without get, the snapshot in the way is not known for what it is")
			restore(ctx)
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonBackupConflict)
			Consistently(ctx, func(g Gomega) string {
				return meta.FindStatusCondition(demoVolume(ctx, g, "data").Status.Conditions, seedv1alpha1.DemoVolumeBackedUp).Reason
			}).WithTimeout(2*time.Second).Should(Equal(reasonBackupConflict), "the request waits while the name is taken")
			Expect(demoVolume(ctx, Default, "data").Status.LastBackupRequest).To(BeEmpty())
			after := &snapshotv1.VolumeSnapshot{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), after)).To(Succeed())
			Expect(after.ResourceVersion).To(Equal(theirs.ResourceVersion), "theirs, untouched")
		})

		It("records each scheduled backup it takes while a request waits on a name taken", func(ctx SpecContext) {
			dv := create(ctx, "data", backedUp(csiClass(ctx, true), func(b *seedv1alpha1.DemoVolumeBackup) { b.Schedule = "@every 2s" }))
			theirs := &snapshotv1.VolumeSnapshot{
				ObjectMeta: metav1.ObjectMeta{Name: backup.RequestedName(dv.Name, "1"), Namespace: namespace},
				Spec:       snapshotv1.VolumeSnapshotSpec{Source: snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To("other")}},
			}
			Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
			bind(ctx, "data", "1Gi")
			requestBackup(ctx, "data", "1")
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeBackedUp, metav1.ConditionFalse, reasonBackupConflict)
			var first time.Time
			Eventually(ctx, func(g Gomega) {
				status := demoVolume(ctx, g, "data").Status
				g.Expect(status.LastScheduledBackupTime).NotTo(BeNil())
				g.Expect(status.LastBackupRequest).To(BeEmpty(), "the request still waits")
				first = status.LastScheduledBackupTime.Time
			}).Should(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(demoVolume(ctx, g, "data").Status.LastScheduledBackupTime.Time).To(BeTemporally(">", first))
			}).Should(Succeed())
		})

		It("makes a claim from a backup once it can be restored, and nothing before", func(ctx SpecContext) {
			class := csiClass(ctx, true)
			source := create(ctx, "source", backedUp(class))
			bind(ctx, "source", "1Gi")
			backupName := backup.RequestedName(source.Name, "1")
			restored := func(dv *seedv1alpha1.DemoVolume) {
				dv.Spec.StorageClassName = ptr.To(class)
				dv.Spec.RestoreFrom = &seedv1alpha1.DemoVolumeRestoreSource{BackupName: backupName}
			}
			create(ctx, "copy", restored, func(dv *seedv1alpha1.DemoVolume) { dv.Spec.Size = 2 })
			create(ctx, "small", restored)
			expectReady(ctx, "copy", metav1.ConditionFalse, backup.ReasonNotFound)

			requestBackup(ctx, "source", "1")
			expectReady(ctx, "copy", metav1.ConditionFalse, backup.ReasonNotReady)
			Expect(k8sClient.Get(ctx, key("copy"), &corev1.PersistentVolumeClaim{})).To(Satisfy(apierrors.IsNotFound), "no claim is made")
			ready(ctx, backupName, "2Gi")
			expectReady(ctx, "small", metav1.ConditionFalse, backup.ReasonTooLarge)
			Expect(k8sClient.Get(ctx, key("small"), &corev1.PersistentVolumeClaim{})).To(Satisfy(apierrors.IsNotFound), "no claim is made")

			By("the claim made once the backup is ready, with the spec unchanged: the first, not a repair")
			Eventually(ctx, func(g Gomega) {
				pvc := &corev1.PersistentVolumeClaim{}
				g.Expect(k8sClient.Get(ctx, key("copy"), pvc)).To(Succeed())
				g.Expect(pvc.Spec.DataSourceRef).To(HaveValue(And(
					HaveField("APIGroup", HaveValue(Equal(snapshotAPIGroup))), HaveField("Kind", "VolumeSnapshot"), HaveField("Name", backupName))))
			}).Should(Succeed())
			expectCondition(ctx, "copy", seedv1alpha1.DemoVolumeRestored, metav1.ConditionTrue, reasonFromBackup)
			expectEvent(ctx, "copy", reasonFromBackup, "from backup "+backupName)
			expectEvent(ctx, "copy", apply.ReasonCreated, "PersistentVolumeClaim")
			Expect(testenv.EventReasons(ctx, k8sClient, demoVolume(ctx, Default, "copy"))).NotTo(ContainElement(apply.ReasonRecreated))
			bind(ctx, "copy", "2Gi")
			expectReady(ctx, "copy", metav1.ConditionTrue, reasonBound)
			Expect(demoVolume(ctx, Default, "copy").Status.RestoredFrom).To(Equal(backupName))

			By("refusing any VolumeSnapshot that is not a DemoVolume's backup")
			theirs := &snapshotv1.VolumeSnapshot{
				ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: namespace},
				Spec:       snapshotv1.VolumeSnapshotSpec{Source: snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To("source")}},
			}
			Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
			create(ctx, "stolen", func(dv *seedv1alpha1.DemoVolume) {
				dv.Spec.RestoreFrom = &seedv1alpha1.DemoVolumeRestoreSource{BackupName: "theirs"}
			})
			expectReady(ctx, "stolen", metav1.ConditionFalse, backup.ReasonNotFound)
		})

		It("makes a deleted claim again from the newest ready backup with restoreOnLoss", func(ctx SpecContext) {
			_, backupName := recoverable(ctx)
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeRestored, metav1.ConditionFalse, reasonMadeEmpty)

			deleteAndExpectRestored(ctx, backupName)
			expectCondition(ctx, "data", seedv1alpha1.DemoVolumeRestored, metav1.ConditionTrue, reasonFromBackup)
		})

		It("makes a lost claim again from the newest ready backup, as the operator's own claim, deleting the lost one once", func(ctx SpecContext) {
			dv, backupName := recoverable(ctx)
			expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)

			By("the claim's volume lost: deleted once, and held by its pvc-protection finalizer")
			lost := claimOf(ctx, "data")
			setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) { st.Phase = corev1.ClaimLost })
			Eventually(ctx, func(g Gomega) *metav1.Time {
				pvc := &corev1.PersistentVolumeClaim{}
				g.Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
				return pvc.DeletionTimestamp
			}).ShouldNot(BeNil())
			removals := func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, dv, apply.ReasonRemoved) }
			Eventually(ctx, removals).Should(BeEquivalentTo(1), "the recorder writes the event after the delete")
			Consistently(ctx, removals).WithTimeout(3*time.Second).Should(BeEquivalentTo(1), "a claim being deleted is not deleted again")

			By("the claim gone: made again from the backup, as the operator's claim, not a repair")
			testenv.Update(ctx, k8sClient, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace}},
				func(pvc *corev1.PersistentVolumeClaim) { pvc.Finalizers = nil })
			expectRestored(ctx, lost, backupName)
			Eventually(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, dv, apply.ReasonCreated) }).
				Should(BeEquivalentTo(2), "the first claim, and the one in place of the lost")
			Expect(testenv.EventCount(ctx, Default, k8sClient, dv, apply.ReasonRecreated)).To(BeZero())
		})

		It("keeps the backups with the claim under Retain, and a DemoVolume of the same name takes them back and restores from them", func(ctx SpecContext) {
			class := csiClass(ctx, true)
			restoreOnLoss := backedUp(class, func(b *seedv1alpha1.DemoVolumeBackup) { b.RestoreOnLoss = true })
			first := create(ctx, "data", restoreOnLoss)
			Expect(first.Spec.ReclaimPolicy).To(Equal(seedv1alpha1.ReclaimRetain))
			bind(ctx, "data", "1Gi")
			requestBackup(ctx, "data", "1")
			backupName := backup.RequestedName(first.Name, "1")
			Eventually(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).Should(ContainElement(backupName))
			ready(ctx, backupName, "1Gi")

			By("snapshots of the same labels that are not this DemoVolume's backups: someone else's, and another owner's")
			foreign := func(name string, mutate func(*snapshotv1.VolumeSnapshot)) *snapshotv1.VolumeSnapshot {
				b := desiredBackup(first, holderRef, name, class, backup.TriggerRequest)
				b.OwnerReferences = nil
				mutate(b)
				Expect(k8sClient.Create(ctx, b)).To(Succeed())
				return b
			}
			unlabelled := foreign("data-theirs", func(*snapshotv1.VolumeSnapshot) {})
			owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: namespace}}
			Expect(k8sClient.Create(ctx, owner)).To(Succeed())
			ownedElsewhere := foreign("data-owned", func(b *snapshotv1.VolumeSnapshot) {
				b.Labels[retainedLabel] = "true"
				b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, corev1.SchemeGroupVersion.WithKind("ConfigMap"))}
			})

			By("deleting the DemoVolume: the backup stays, released and labelled, with the claim")
			Expect(k8sClient.Delete(ctx, first)).To(Succeed())
			expectGone(ctx, "data")
			Eventually(ctx, func(g Gomega) {
				kept := &snapshotv1.VolumeSnapshot{}
				g.Expect(k8sClient.Get(ctx, key(backupName), kept)).To(Succeed())
				g.Expect(kept.DeletionTimestamp).To(BeNil())
				g.Expect(kept.OwnerReferences).To(BeEmpty(), "the garbage collector must have no reason to delete it")
				g.Expect(kept.Labels).To(HaveKeyWithValue(retainedLabel, "true"))
				g.Expect(claimOf(ctx, "data").Labels).To(HaveKeyWithValue(retainedLabel, "true"))
			}).Should(Succeed())
			expectEvent(ctx, "data", reasonRetained, "Kept PersistentVolumeClaim data and its data, and 1 backup ("+backupName+")")

			By("a DemoVolume of the same name: the backup is its again, listed, and nothing else is taken")
			second := create(ctx, "data", restoreOnLoss)
			Eventually(ctx, func(g Gomega) {
				b := &snapshotv1.VolumeSnapshot{}
				g.Expect(k8sClient.Get(ctx, key(backupName), b)).To(Succeed())
				g.Expect(metav1.IsControlledBy(b, second)).To(BeTrue())
				g.Expect(b.Labels).NotTo(HaveKey(retainedLabel))
				g.Expect(demoVolume(ctx, g, "data").Status.Backups).To(ConsistOf(HaveField("Name", backupName)))
			}).Should(Succeed())
			expectEvent(ctx, "data", reasonAdopted, "Took back backups "+backupName)
			for _, b := range []*snapshotv1.VolumeSnapshot{unlabelled, ownedElsewhere} {
				now := &snapshotv1.VolumeSnapshot{}
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(b), now)).To(Succeed())
				Expect(now.ResourceVersion).To(Equal(b.ResourceVersion), "%s is left as it was", b.Name)
			}

			By("the claim lost: made again from the backup taken back")
			expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
			deleteAndExpectRestored(ctx, backupName)
		})

		It("deletes the backups with the claim with reclaimPolicy Delete", func(ctx SpecContext) {
			dv := create(ctx, "data", backedUp(csiClass(ctx, true)), func(dv *seedv1alpha1.DemoVolume) { dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete })
			bind(ctx, "data", "1Gi")
			requestBackup(ctx, "data", "1")
			backupName := backup.RequestedName(dv.Name, "1")
			Eventually(ctx, func(g Gomega) []string { return backupsOf(ctx, g, "data") }).Should(ContainElement(backupName))
			b := &snapshotv1.VolumeSnapshot{}
			Expect(k8sClient.Get(ctx, key(backupName), b)).To(Succeed())
			Expect(b.OwnerReferences).To(ConsistOf(And(
				HaveField("UID", dv.UID), HaveField("Controller", HaveValue(BeTrue())), HaveField("BlockOwnerDeletion", HaveValue(BeTrue())),
			), Equal(holderOf(ctx))), "held by the namespace, so that only the operator deletes it, as the policy says")

			Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
			expectGone(ctx, "data")
			Eventually(ctx, func() error { return k8sClient.Get(ctx, key(backupName), &snapshotv1.VolumeSnapshot{}) }).Should(Satisfy(apierrors.IsNotFound))
			expectEvent(ctx, "data", reasonDeleted, "Deleted PersistentVolumeClaim data, VolumeSnapshot "+backupName+", as reclaimPolicy Delete says")
		})
	})

	It("grows a claim by itself as it fills, up to maxSize, and says when it is full there", func(ctx SpecContext) {
		class := storageClass(ctx, true)
		create(ctx, "data", func(dv *seedv1alpha1.DemoVolume) {
			dv.Spec.StorageClassName = ptr.To(class)
			dv.Spec.AutoGrow = &seedv1alpha1.DemoVolumeAutoGrow{MaxSize: 3}
		})
		bind(ctx, "data", "1Gi")
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: claimOf(ctx, "data").Spec.VolumeName},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               capacity("1Gi"),
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}},
			},
		}
		Expect(k8sClient.Create(ctx, pv)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, pv)).To(Succeed()) })

		By("a kubelet that refuses: said in AtMaxSize")
		usages.fail(errors.New(`the kubelet of node n answered 403 Forbidden: cannot get resource "nodes/stats"`))
		// Waited for with the message: the condition may already say Unknown
		// from a reconcile before the kubelet failed, for want of a usage.
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, "data").Status.Conditions).To(ContainElement(And(
				HaveField("Type", seedv1alpha1.DemoVolumeAtMaxSize),
				HaveField("Status", metav1.ConditionUnknown),
				HaveField("Reason", reasonUsageUnknown),
				HaveField("Message", ContainSubstring("403 Forbidden")),
			)))
		}).Should(Succeed())
		usages.fail(nil)

		By("under the threshold: measured, not grown")
		usages.set(namespace, 700<<20, 1<<30)
		Eventually(ctx, func(g Gomega) {
			g.Expect(demoVolume(ctx, g, "data").Status.Usage).To(HaveValue(And(HaveField("Used", "700Mi"), HaveField("Percent", BeEquivalentTo(68)))))
		}).Should(Succeed())
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionFalse, reasonBelowMaxSize)
		Expect(request(claimOf(ctx, "data"))).To(Equal("1Gi"))

		By("past the default 80%: grown by the default 1 GiB")
		usages.set(namespace, 900<<20, 1<<30)
		Eventually(ctx, func(g Gomega) { g.Expect(request(claimOf(ctx, "data"))).To(Equal("2Gi")) }).Should(Succeed())
		Expect(demoVolume(ctx, Default, "data").Status.LastGrowth).To(HaveValue(And(HaveField("From", "1Gi"), HaveField("To", "2Gi"))))
		expectEvent(ctx, "data", reasonGrown, "from 1Gi to 2Gi")
		expectReady(ctx, "data", metav1.ConditionFalse, reasonResizing)
		Consistently(ctx, func() string { return request(claimOf(ctx, "data")) }).WithTimeout(2*time.Second).
			Should(Equal("2Gi"), "not again while it grows, however full")

		By("grown, while the kubelet still reports the file system it measured before: not again")
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) { st.Capacity = capacity("2Gi") })
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionUnknown, reasonGrowthUnmeasured)
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		Consistently(ctx, func() string { return request(claimOf(ctx, "data")) }).WithTimeout(3*time.Second).
			Should(Equal("2Gi"), "one growth for one measurement")
		dv := demoVolume(ctx, Default, "data")
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, reasonGrown)).To(BeEquivalentTo(1))
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, apply.ReasonRepaired)).To(BeZero(), "the operator's own growth is no repair")

		By("the grown file system measured under the threshold: not grown")
		usages.set(namespace, 900<<20, 2<<30)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionFalse, reasonBelowMaxSize)
		Consistently(ctx, func() string { return request(claimOf(ctx, "data")) }).WithTimeout(2 * time.Second).Should(Equal("2Gi"))

		By("full again on the grown file system: up to maxSize")
		usages.set(namespace, 1900<<20, 2<<30)
		Eventually(ctx, func(g Gomega) { g.Expect(request(claimOf(ctx, "data"))).To(Equal("3Gi")) }).Should(Succeed())
		setClaimStatus(ctx, "data", func(st *corev1.PersistentVolumeClaimStatus) { st.Capacity = capacity("3Gi") })
		usages.set(namespace, 3000<<20, 3<<30)
		expectCondition(ctx, "data", seedv1alpha1.DemoVolumeAtMaxSize, metav1.ConditionTrue, reasonAtMaxSize)
		expectReady(ctx, "data", metav1.ConditionTrue, reasonBound)
		Consistently(ctx, func() string { return request(claimOf(ctx, "data")) }).WithTimeout(2 * time.Second).Should(Equal("3Gi"))
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, reasonGrown)).To(BeEquivalentTo(2))
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, apply.ReasonUpdated)).To(BeEquivalentTo(2), "each growth applied, as the operator's")
		Expect(testenv.EventCount(ctx, Default, k8sClient, dv, apply.ReasonRepaired)).To(BeZero())
	})
})
