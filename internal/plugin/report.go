package plugin

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/kube"
)

type reportOptions struct {
	scope
	file string
}

func newReportCommand(s *Session) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write a support bundle: the operator, its logs, and every resource with its objects and events",
		Long: "Write a tar.gz of what a support request needs: the operator's Deployment, pods, logs\n" +
			"and leader Lease, its ClusterServiceVersion and Subscription when OLM installed it,\n" +
			"and every seed-operator resource of the namespace (or of every namespace with -A), with\n" +
			"the objects the operator made for them and their namespaces' events. Secrets are never\n" +
			"read, and anything that looks like a token is replaced before it is written. What you\n" +
			"may not read is listed in the bundle's README and on the way out, and the rest is written.",
		Example: "  # A support bundle of the namespace shop\n  kubectl seed report -n shop -o shop.tar.gz",
		Args:    cobra.NoArgs,
		RunE: s.connected(func(cmd *cobra.Command, _ []string) error {
			return s.report(cmd.Context(), o)
		}),
	}
	o.add(cmd)
	cmd.Flags().StringVarP(&o.file, "output", "o", "", "The file to write (default: seed-report-<time>.tar.gz); it must not exist")
	return cmd
}

// ownedKinds are the kinds the operator makes, all labelled as its own.
var ownedKinds = []func() client.ObjectList{
	func() client.ObjectList { return &appsv1.DeploymentList{} },
	func() client.ObjectList { return &appsv1.ReplicaSetList{} },
	func() client.ObjectList { return &corev1.ServiceList{} },
	func() client.ObjectList { return &autoscalingv2.HorizontalPodAutoscalerList{} },
	func() client.ObjectList { return &batchv1.JobList{} },
	func() client.ObjectList { return &batchv1.CronJobList{} },
	func() client.ObjectList { return &corev1.PodList{} },
	func() client.ObjectList { return &corev1.PersistentVolumeClaimList{} },
	func() client.ObjectList { return &snapshotv1.VolumeSnapshotList{} },
}

// olmKinds are what OLM installs the operator from, when it did.
var olmKinds = []schema.GroupVersionKind{
	{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "ClusterServiceVersionList"},
	{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "SubscriptionList"},
}

// report writes the support bundle.
func (s *Session) report(ctx context.Context, o reportOptions) error {
	name := o.file
	if name == "" {
		name = "seed-report-" + s.Now().UTC().Format("20060102-150405") + ".tar.gz"
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating the report: %w", err)
	}
	b := newBundle(f, s.Now())
	gatherErr := s.gather(ctx, o, b)
	// Both close, whatever the other says.
	closeErr := cmp.Or(b.close(), f.Close())
	if gatherErr != nil || closeErr != nil {
		_ = os.Remove(name)
		if gatherErr != nil {
			return gatherErr
		}
		return fmt.Errorf("writing the report: %w", closeErr)
	}
	for _, u := range b.unread {
		if err := say(s.ErrOut, "Not read: %s", u); err != nil {
			return err
		}
	}
	return say(s.Out, "Wrote %s: %d files", name, len(b.files))
}

// gather adds to b what the report holds. What the API server refuses to
// show, or does not serve, is listed as unread; any other error ends it.
func (s *Session) gather(ctx context.Context, o reportOptions, b *bundle) error {
	namespaces := map[string]bool{}
	for _, k := range kinds {
		err := s.listInto(ctx, b, k.plural, k.list(), func(obj client.Object) string {
			namespaces[obj.GetNamespace()] = true
			return path.Join("resources", obj.GetNamespace(), k.plural, obj.GetName()+".yaml")
		}, o.listOptions(s.Namespace)...)
		if err != nil {
			return err
		}
	}

	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		for _, newList := range ownedKinds {
			l := newList()
			kind := listKind(l)
			err := s.listInto(ctx, b, kind+"s in "+ns, l, func(obj client.Object) string {
				return path.Join("resources", ns, "owned", strings.ToLower(kind), obj.GetName()+".yaml")
			}, client.InNamespace(ns), client.MatchingLabels{kube.LabelManagedBy: kube.ManagedBy})
			if err != nil {
				return err
			}
		}
		events := &eventsv1.EventList{}
		if err := s.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
			if err := b.unreadErr("events in "+ns, err); err != nil {
				return err
			}
			continue
		}
		for i := range events.Items {
			events.Items[i].ManagedFields = nil
		}
		b.yaml(path.Join("resources", ns, "events.yaml"), events)
	}
	return s.gatherOperator(ctx, o.operatorNamespace, b)
}

// listInto lists l and writes each item where name says; what cannot be
// read is listed as unread.
func (s *Session) listInto(ctx context.Context, b *bundle, what string, l client.ObjectList,
	name func(client.Object) string, opts ...client.ListOption) error {
	if err := s.Client.List(ctx, l, opts...); err != nil {
		return b.unreadErr(what, err)
	}
	return b.objects(l, name)
}

// gatherOperator adds the operator's Deployment, pods, logs, Lease, and
// what OLM installed it from.
func (s *Session) gatherOperator(ctx context.Context, ns string, b *bundle) error {
	dir := path.Join("operator", ns)
	in := []client.ListOption{client.InNamespace(ns), operatorLabels}
	if err := s.listInto(ctx, b, "the operator's Deployments in "+ns, &appsv1.DeploymentList{},
		func(obj client.Object) string { return path.Join(dir, "deployment-"+obj.GetName()+".yaml") }, in...); err != nil {
		return err
	}
	pods := &corev1.PodList{}
	if err := s.listInto(ctx, b, "the operator's pods in "+ns, pods,
		func(obj client.Object) string { return path.Join(dir, "pod-"+obj.GetName()+".yaml") }, in...); err != nil {
		return err
	}
	for _, pod := range pods.Items {
		if err := s.gatherLogs(ctx, pod, dir, b); err != nil {
			return err
		}
	}
	lease := &coordinationv1.Lease{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: kube.LeaderElectionID}, lease); err != nil {
		if err := b.unreadErr("the operator's Lease in "+ns, err); err != nil {
			return err
		}
	} else {
		b.object(path.Join(dir, "lease.yaml"), lease)
	}
	for _, gvk := range olmKinds {
		kind := strings.TrimSuffix(gvk.Kind, "List")
		items, err := s.listServed(ctx, gvk, client.InNamespace(ns))
		if err != nil {
			if err := b.unreadErr(kind+"s in "+ns, err); err != nil {
				return err
			}
			continue
		}
		for i := range items {
			if item := &items[i]; strings.HasPrefix(item.GetName(), "seed-operator") {
				b.object(path.Join(dir, strings.ToLower(kind)+"-"+item.GetName()+".yaml"), item)
			}
		}
	}
	return nil
}

// gatherLogs adds the logs of pod's containers, and of their previous
// run when they restarted.
func (s *Session) gatherLogs(ctx context.Context, pod corev1.Pod, dir string, b *bundle) error {
	for _, c := range pod.Status.ContainerStatuses {
		for _, previous := range []bool{false, true} {
			if previous && c.RestartCount == 0 {
				continue
			}
			log, err := s.Kube.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: c.Name, Previous: previous}).DoRaw(ctx)
			name := fmt.Sprintf("logs-%s-%s", pod.Name, c.Name)
			if previous {
				name += "-previous"
			}
			if err != nil {
				if err := b.unreadErr("the log "+name, err); err != nil {
					return err
				}
				continue
			}
			b.add(path.Join(dir, name+".log"), log)
		}
	}
	return nil
}

// listKind is the kind of the items of l.
func listKind(l client.ObjectList) string {
	gvk, err := apiutil.GVKForObject(l, Scheme)
	if err != nil {
		return fmt.Sprintf("%T", l)
	}
	return strings.TrimSuffix(gvk.Kind, "List")
}

// bundle is a tar.gz being written: every file scrubbed of what looks like
// a token.
type bundle struct {
	gz     *gzip.Writer
	tw     *tar.Writer
	now    time.Time
	files  []string
	unread []string
	err    error
}

func newBundle(out io.Writer, now time.Time) *bundle {
	gz := gzip.NewWriter(out)
	return &bundle{gz: gz, tw: tar.NewWriter(gz), now: now}
}

// tokens are what is replaced in every file: JSON Web Tokens (service
// account tokens are), and whatever follows "Bearer".
var tokens = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|(?i)(bearer\s+)[^\s"']+`)

// redacted is what stands for a token.
const redacted = "REDACTED"

// scrub replaces tokens in data, keeping the "Bearer " before one.
func scrub(data []byte) []byte {
	return tokens.ReplaceAll(data, []byte("${1}"+redacted))
}

// add writes a file of data, scrubbed.
func (b *bundle) add(name string, data []byte) {
	if b.err != nil {
		return
	}
	data = scrub(data)
	if b.err = b.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(data)), ModTime: b.now}); b.err == nil {
		_, b.err = b.tw.Write(data)
	}
	b.files = append(b.files, name)
}

// object writes obj as YAML, with its kind and without its managed fields.
func (b *bundle) object(name string, obj runtime.Object) {
	if o, ok := obj.(client.Object); ok {
		o = o.DeepCopyObject().(client.Object)
		o.SetManagedFields(nil)
		if gvk, err := apiutil.GVKForObject(o, Scheme); err == nil {
			o.GetObjectKind().SetGroupVersionKind(gvk)
		}
		obj = o
	}
	b.yaml(name, obj)
}

func (b *bundle) yaml(name string, obj any) {
	data, err := yaml.Marshal(obj)
	if err != nil {
		b.err = fmt.Errorf("encoding %s: %w", name, err)
		return
	}
	b.add(name, data)
}

// objects writes every item of l, each where name says.
func (b *bundle) objects(l client.ObjectList, name func(client.Object) string) error {
	return meta.EachListItem(l, func(item runtime.Object) error {
		if obj, ok := item.(client.Object); ok {
			b.object(name(obj), obj)
		}
		return b.err
	})
}

// unreadErr lists what could not be read, or returns err when it is not
// a refusal.
func (b *bundle) unreadErr(what string, err error) error {
	u, err := notRead(what, err)
	if err == nil {
		b.unread = append(b.unread, u)
	}
	return err
}

// close writes the README, which lists every file and what was not read.
func (b *bundle) close() error {
	var readme bytes.Buffer
	readme.WriteString("seed-operator support bundle, written " + b.now.UTC().Format(time.RFC3339) + " by kubectl seed report.\n\nFiles:\n")
	for _, f := range b.files {
		readme.WriteString("  " + f + "\n")
	}
	if len(b.unread) > 0 {
		readme.WriteString("\nNot read:\n")
		for _, u := range b.unread {
			readme.WriteString("  " + u + "\n")
		}
	}
	b.add("README.txt", readme.Bytes())
	if b.err != nil {
		return b.err
	}
	if err := b.tw.Close(); err != nil {
		return err
	}
	return b.gz.Close()
}
