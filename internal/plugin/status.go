package plugin

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Overview is what status shows: the operator, every resource, and the
// last warnings about them.
type Overview struct {
	Operator  Operator   `json:"operator"`
	Resources []Resource `json:"resources"`
	Warnings  []Warning  `json:"warnings,omitempty"`
	// Unread says what could not be read, and why.
	Unread []string `json:"unread,omitempty"`
}

// Operator is the operator's own state, as its namespace shows it.
type Operator struct {
	Namespace     string `json:"namespace"`
	Image         string `json:"image,omitempty"`
	Version       string `json:"version,omitempty"`
	Replicas      int32  `json:"replicas"`
	ReadyReplicas int32  `json:"readyReplicas"`
	Leader        string `json:"leader,omitempty"`
	// MetricsService serves the operator's metrics; Monitoring are the
	// prometheus-operator objects that scrape them and alert on them.
	MetricsService string   `json:"metricsService,omitempty"`
	Monitoring     []string `json:"monitoring,omitempty"`
}

// Resource is one custom resource: its Ready condition and, in a few
// lines, the state of what it owns.
type Resource struct {
	Namespace string                 `json:"namespace"`
	Kind      string                 `json:"kind"`
	Name      string                 `json:"name"`
	Ready     metav1.ConditionStatus `json:"ready"`
	Reason    string                 `json:"reason,omitempty"`
	Message   string                 `json:"message,omitempty"`
	Created   metav1.Time            `json:"created"`
	Details   []string               `json:"details,omitempty"`
}

// Warning is a Warning event about a resource.
type Warning struct {
	Time   metav1.Time `json:"time"`
	Object string      `json:"object"`
	Reason string      `json:"reason"`
	Note   string      `json:"note"`
	Count  int32       `json:"count"`
}

// maxWarnings is how many of the newest warnings status shows.
const maxWarnings = 10

// scope is which namespaces a command reads: the current one or every
// one, and the operator's.
type scope struct {
	allNamespaces     bool
	operatorNamespace string
}

func (sc *scope) add(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&sc.allNamespaces, "all-namespaces", "A", false, "Read the resources of every namespace")
	cmd.Flags().StringVar(&sc.operatorNamespace, "operator-namespace", "seed-operator-system", "The namespace the operator runs in")
}

// listOptions list in namespace, or in every one.
func (sc scope) listOptions(namespace string) []client.ListOption {
	if sc.allNamespaces {
		return nil
	}
	return []client.ListOption{client.InNamespace(namespace)}
}

type statusOptions struct {
	scope
	output string
}

func newStatusCommand(s *Session) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status [NAME]",
		Short: "Show the health of every seed-operator resource, and of the operator",
		Long: "Show every seed-operator resource of the namespace (or of every namespace with -A),\n" +
			"or those named NAME: whether it is Ready and why, the state of what it owns, and the\n" +
			"newest warnings about them; and the operator's own state: its image, its ready\n" +
			"replicas and which of them leads.",
		Example: "  # Every resource of the current namespace\n  kubectl seed status\n\n" +
			"  # Every resource named web, as YAML\n  kubectl seed status web -o yaml\n\n" +
			"  # Every namespace, with the operator installed in operators\n  kubectl seed status -A --operator-namespace operators",
		Args: cobra.MaximumNArgs(1),
		RunE: s.connected(func(cmd *cobra.Command, args []string) error {
			report, err := s.status(cmd.Context(), o, args)
			if err != nil {
				return err
			}
			switch o.output {
			case "":
				return report.Write(s.Out, s.Now(), o.allNamespaces, isTerminal(s.Out))
			case "json":
				out, err := json.MarshalIndent(report, "", "  ")
				if err != nil {
					return err
				}
				return say(s.Out, "%s", out)
			case "yaml":
				out, err := yaml.Marshal(report)
				if err != nil {
					return err
				}
				_, err = s.Out.Write(out)
				return err
			}
			return fmt.Errorf("output format %q is not one of json, yaml", o.output)
		}),
	}
	o.add(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: json or yaml (default: a table)")
	return cmd
}

// status reads the report. What the API server refuses to show, or does
// not serve, it names in Unread and goes on; any other error ends it.
func (s *Session) status(ctx context.Context, o statusOptions, names []string) (Overview, error) {
	report := Overview{Operator: Operator{Namespace: o.operatorNamespace}}
	unread := func(what string, err error) error {
		u, err := notRead(what, err)
		if err == nil {
			report.Unread = append(report.Unread, u)
		}
		return err
	}
	in := o.listOptions(s.Namespace)
	for _, kind := range kinds {
		list := kind.list()
		if err := s.Client.List(ctx, list, in...); err != nil {
			if err := unread(kind.plural, err); err != nil {
				return report, err
			}
			continue
		}
		for _, r := range kind.resources(list) {
			if len(names) == 0 || slices.Contains(names, r.Name) {
				report.Resources = append(report.Resources, r)
			}
		}
	}

	events := &eventsv1.EventList{}
	if err := s.Client.List(ctx, events, in...); err != nil {
		if err := unread("events", err); err != nil {
			return report, err
		}
	}
	report.Warnings = warnings(events.Items, report.Resources)

	op := &report.Operator
	if err := s.operatorDeployment(ctx, op); err != nil {
		if err := unread("the operator's Deployment in namespace "+op.Namespace, err); err != nil {
			return report, err
		}
	}
	if err := s.leader(ctx, op); err != nil {
		if err := unread("the operator's Lease in namespace "+op.Namespace, err); err != nil {
			return report, err
		}
	}
	if err := s.monitoring(ctx, op); err != nil {
		return report, unread("the operator's metrics Service and monitoring objects in namespace "+op.Namespace, err)
	}
	return report, nil
}

// operatorLabels select the operator's Deployment, pods and metrics
// Service, as every way of installing it labels them.
var operatorLabels = client.MatchingLabels{"control-plane": "controller-manager"}

// monitoringKinds are the prometheus-operator kinds the operator ships
// objects of: one scrapes its metrics, the other alerts on them.
var monitoringKinds = []string{"ServiceMonitor", "PrometheusRule"}

// monitoring reads the operator's metrics Service, and its monitoring
// objects when the cluster serves their kinds.
func (s *Session) monitoring(ctx context.Context, op *Operator) error {
	services := &corev1.ServiceList{}
	if err := s.Client.List(ctx, services, client.InNamespace(op.Namespace),
		operatorLabels); err != nil {
		return err
	}
	if len(services.Items) > 0 {
		op.MetricsService = services.Items[0].Name
	}
	for _, kind := range monitoringKinds {
		gvk := schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: kind + "List"}
		items, err := s.listServed(ctx, gvk, client.InNamespace(op.Namespace), client.MatchingLabels{kube.LabelName: "seed-operator"})
		if err != nil {
			return err
		}
		for _, item := range items {
			op.Monitoring = append(op.Monitoring, kind+" "+item.GetName())
		}
	}
	return nil
}

// listServed lists the objects of the list kind gvk, or none when the
// cluster does not serve the kind (no OLM, no prometheus-operator).
func (s *Session) listServed(ctx context.Context, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk)
	if err := s.Client.List(ctx, list, opts...); err != nil && !meta.IsNoMatchError(err) {
		return nil, err
	}
	return list.Items, nil
}

// operatorDeployment reads the operator's Deployment: its image and
// replicas.
func (s *Session) operatorDeployment(ctx context.Context, op *Operator) error {
	deployments := &appsv1.DeploymentList{}
	if err := s.Client.List(ctx, deployments, client.InNamespace(op.Namespace),
		operatorLabels); err != nil {
		return err
	}
	if len(deployments.Items) == 0 {
		return apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "seed-operator")
	}
	d := deployments.Items[0]
	op.Replicas, op.ReadyReplicas = d.Status.Replicas, d.Status.ReadyReplicas
	if containers := d.Spec.Template.Spec.Containers; len(containers) > 0 {
		op.Image = containers[0].Image
	}
	op.Version = cmp.Or(d.Labels["app.kubernetes.io/version"], imageTag(op.Image))
	return nil
}

// imageTag is the tag of image, digest or not, or nothing.
func imageTag(image string) string {
	name, _, _ := strings.Cut(path.Base(image), "@")
	_, tag, _ := strings.Cut(name, ":")
	return tag
}

// leader reads which replica leads from the leader election Lease.
func (s *Session) leader(ctx context.Context, op *Operator) error {
	lease := &coordinationv1.Lease{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: op.Namespace, Name: kube.LeaderElectionID}, lease); err != nil {
		return err
	}
	if holder := lease.Spec.HolderIdentity; holder != nil {
		// The identity is the pod's name, then an underscore and a UUID.
		op.Leader, _, _ = strings.Cut(*holder, "_")
	}
	return nil
}

// notRead says what could not be read and why when err is the API
// server's refusal to show it (RBAC's, or a kind it does not serve); any
// other error it returns, as what ends a command.
func notRead(what string, err error) (string, error) {
	if !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	return fmt.Sprintf("%s: %s", what, reasonOf(err)), nil
}

// reasonOf is err as status says it: briefly for what RBAC forbids.
func reasonOf(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "not allowed"
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return "not found"
	}
	return err.Error()
}

// warnings are the newest Warning events about resources, newest first.
func warnings(events []eventsv1.Event, resources []Resource) []Warning {
	var list []Warning
	for _, e := range events {
		regarding := e.Regarding
		if e.Type != corev1.EventTypeWarning || !slices.ContainsFunc(resources, func(r Resource) bool {
			return r.Kind == regarding.Kind && r.Name == regarding.Name && r.Namespace == regarding.Namespace
		}) {
			continue
		}
		w := Warning{Time: eventTime(e), Object: strings.ToLower(regarding.Kind) + "/" + regarding.Name, Reason: e.Reason, Note: e.Note, Count: 1}
		if e.Series != nil {
			w.Count = e.Series.Count
		} else if e.DeprecatedCount > 1 {
			w.Count = e.DeprecatedCount
		}
		list = append(list, w)
	}
	slices.SortStableFunc(list, func(a, b Warning) int { return b.Time.Compare(a.Time.Time) })
	return list[:min(len(list), maxWarnings)]
}

// eventTime is when an event last happened.
func eventTime(e eventsv1.Event) metav1.Time {
	switch {
	case e.Series != nil:
		return metav1.Time{Time: e.Series.LastObservedTime.Time}
	case !e.DeprecatedLastTimestamp.IsZero():
		return e.DeprecatedLastTimestamp
	case !e.EventTime.IsZero():
		return metav1.Time{Time: e.EventTime.Time}
	}
	return e.CreationTimestamp
}

// Write writes the report as tables, with ages as of now, with the
// resources' namespaces or not, and coloured or not.
func (r Overview) Write(out io.Writer, now time.Time, namespaces, colour bool) error {
	p := newPrinter(out)
	op := r.Operator
	if op.Image != "" || op.Leader != "" {
		p.printf("Operator in namespace %s:", op.Namespace)
		if op.Image != "" {
			p.printf(" %s (version %s), %d of %d replicas ready,", op.Image, cmp.Or(op.Version, "unknown"), op.ReadyReplicas, op.Replicas)
		}
		p.printf(" leader %s\n", cmp.Or(op.Leader, "none"))
		metrics := "no Service"
		if op.MetricsService != "" {
			metrics = "Service " + op.MetricsService
		}
		p.printf("Metrics: %s; monitoring: %s\n\n", metrics, cmp.Or(strings.Join(op.Monitoring, ", "), "none"))
	}
	if len(r.Resources) == 0 {
		p.printf("No seed-operator resources.\n")
	} else {
		columns := []string{"KIND", "NAME", "READY", "REASON", "AGE", "DETAILS"}
		if namespaces {
			columns = append([]string{"NAMESPACE"}, columns...)
		}
		ready := slices.Index(columns, "READY")
		columns[ready] = paint(columns[ready], colour)
		p.printf("%s\n", strings.Join(columns, "\t"))
		for _, res := range r.Resources {
			lines := res.Details
			if res.Ready != metav1.ConditionTrue && res.Message != "" {
				lines = append([]string{res.Message}, lines...)
			}
			row := []string{res.Kind, res.Name, paint(string(res.Ready), colour), res.Reason, age(res.Created, now), first(lines)}
			if namespaces {
				row = append([]string{res.Namespace}, row...)
			}
			p.printf("%s\n", strings.TrimRight(strings.Join(row, "\t"), "\t"))
			for _, line := range lines[min(1, len(lines)):] {
				cells := make([]string, len(row)-1, len(row))
				cells[ready] = paint("", colour)
				p.printf("%s\n", strings.Join(append(cells, line), "\t"))
			}
		}
	}
	if len(r.Warnings) > 0 {
		p.printf("\nWarnings, newest first:\nLAST SEEN\tOBJECT\tREASON\tCOUNT\tMESSAGE\n")
		for _, warn := range r.Warnings {
			p.printf("%s\t%s\t%s\t%d\t%s\n", age(warn.Time, now), warn.Object, warn.Reason, warn.Count, warn.Note)
		}
	}
	if len(r.Unread) > 0 {
		p.printf("\n")
	}
	for _, u := range r.Unread {
		p.printf("Not read: %s\n", u)
	}
	return p.flush()
}

// age is how long ago t was, as kubectl writes it.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

func first(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// readyOf is obj's Ready condition as a Resource gives it.
func readyOf(obj client.Object, kind string, conditions []metav1.Condition) Resource {
	r := Resource{Namespace: obj.GetNamespace(), Kind: kind, Name: obj.GetName(), Created: obj.GetCreationTimestamp()}
	c := meta.FindStatusCondition(conditions, seedv1alpha1.ConditionReady)
	if c == nil || c.ObservedGeneration != obj.GetGeneration() {
		r.Ready, r.Reason = metav1.ConditionUnknown, "NotObservedYet"
		r.Message = fmt.Sprintf("The operator has not acted on generation %d yet", obj.GetGeneration())
		return r
	}
	r.Ready, r.Reason, r.Message = c.Status, c.Reason, c.Message
	return r
}
