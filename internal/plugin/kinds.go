package plugin

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// kind is how status lists one kind and says what each resource owns.
type kind struct {
	plural    string
	list      func() client.ObjectList
	resources func(client.ObjectList) []Resource
}

// kinds are the operator's kinds, in the order status shows them.
var kinds = []kind{
	of("echoes", func(l *seedv1alpha1.EchoList) []seedv1alpha1.Echo { return l.Items }, echo),
	of("scheduledechoes", func(l *seedv1alpha1.ScheduledEchoList) []seedv1alpha1.ScheduledEcho { return l.Items }, scheduledEcho),
	of("immortalcontainers", func(l *seedv1alpha1.ImmortalContainerList) []seedv1alpha1.ImmortalContainer { return l.Items }, immortalContainer),
	of("webservers", func(l *seedv1alpha1.WebServerList) []seedv1alpha1.WebServer { return l.Items }, webServer),
	of("demovolumes", func(l *seedv1alpha1.DemoVolumeList) []seedv1alpha1.DemoVolume { return l.Items }, demoVolume),
}

func of[L any, PL interface {
	*L
	client.ObjectList
}, T any](plural string, items func(PL) []T, view func(*T) Resource) kind {
	return kind{
		plural: plural,
		list:   func() client.ObjectList { return PL(new(L)) },
		resources: func(list client.ObjectList) []Resource {
			all := items(list.(PL))
			resources := make([]Resource, 0, len(all))
			for i := range all {
				resources = append(resources, view(&all[i]))
			}
			return resources
		},
	}
}

func echo(e *seedv1alpha1.Echo) Resource {
	r := readyOf(e, "Echo", e.Status.Conditions)
	if e.Status.JobName != "" {
		r.Details = append(r.Details, fmt.Sprintf("job %s %s", e.Status.JobName, cmp.Or(string(e.Status.Phase), "Pending")))
	}
	if t := e.Status.CompletionTime; t != nil {
		r.Details = append(r.Details, "completed "+timestamp(*t))
	}
	return r
}

func scheduledEcho(e *seedv1alpha1.ScheduledEcho) Resource {
	r := readyOf(e, "ScheduledEcho", e.Status.Conditions)
	schedule := string(e.Spec.Schedule)
	if tz := e.Spec.TimeZone; tz != nil {
		schedule += " " + *tz
	}
	if ptr.Deref(e.Spec.Suspend, false) {
		schedule += ", suspended"
	}
	r.Details = append(r.Details, fmt.Sprintf("cronjob %s, schedule %s", cmp.Or(e.Status.CronJobName, e.Name), schedule))
	if t := e.Status.LastScheduleTime; t != nil {
		line := "last run " + timestamp(*t)
		if s := e.Status.LastSuccessfulTime; s != nil {
			line += ", last success " + timestamp(*s)
		}
		r.Details = append(r.Details, line)
	}
	if active := e.Status.Active; len(active) > 0 {
		r.Details = append(r.Details, "running: "+strings.Join(active, ", "))
	}
	return r
}

func immortalContainer(ic *seedv1alpha1.ImmortalContainer) Resource {
	r := readyOf(ic, "ImmortalContainer", ic.Status.Conditions)
	if ic.Status.CurrentPod != "" {
		r.Details = append(r.Details, fmt.Sprintf("pod %s, started %d times", ic.Status.CurrentPod, ic.Status.PodsStarted))
	}
	if starts := ic.Status.StartTimes; len(starts) > 0 {
		r.Details = append(r.Details, "last start "+timestamp(starts[len(starts)-1]))
	}
	if t := ic.Status.NextStartTime; t != nil {
		r.Details = append(r.Details, "next start "+timestamp(*t))
	}
	return r
}

func webServer(ws *seedv1alpha1.WebServer) Resource {
	r := readyOf(ws, "WebServer", ws.Status.Conditions)
	s := ws.Status
	r.Details = append(r.Details, fmt.Sprintf("%d/%d ready, %d updated, image %s", s.ReadyReplicas, s.Replicas, s.UpdatedReplicas, ws.Spec.Image))
	if a, spec := s.Autoscaling, ws.Spec.Autoscaling; a != nil && spec != nil {
		line := fmt.Sprintf("autoscaling %d-%d: %d replicas, wants %d",
			ptr.Deref(spec.MinReplicas, 1), spec.MaxReplicas, a.CurrentReplicas, a.DesiredReplicas)
		if cpu := a.CurrentCPUUtilizationPercentage; cpu != nil {
			line += fmt.Sprintf(", CPU %d%% of requests", *cpu)
		}
		r.Details = append(r.Details, line)
	}
	if s.LastAvailableImage != "" && s.LastAvailableImage != ws.Spec.Image {
		r.Details = append(r.Details, "last available image "+s.LastAvailableImage)
	}
	if rb := s.Rollback; rb != nil {
		r.Details = append(r.Details, rollbackLine(rb))
	}
	return r
}

// rollbackLine says what the last rollback did, and why.
func rollbackLine(rb *seedv1alpha1.WebServerRollback) string {
	return fmt.Sprintf("rolled back from %s to %s %s: %s", rb.Image, rb.To, timestamp(rb.Time), rb.Reason)
}

func demoVolume(dv *seedv1alpha1.DemoVolume) Resource {
	r := readyOf(dv, "DemoVolume", dv.Status.Conditions)
	s := dv.Status
	if s.ClaimName != "" {
		line := fmt.Sprintf("claim %s %s", s.ClaimName, cmp.Or(string(s.Phase), "Pending"))
		if s.Capacity != "" {
			line += ", " + s.Capacity
		}
		if s.RestoredFrom != "" {
			line += ", restored from " + s.RestoredFrom
		}
		r.Details = append(r.Details, line)
	}
	if u := s.Usage; u != nil {
		r.Details = append(r.Details, fmt.Sprintf("used %s of %s (%d%%) at %s", u.Used, u.Capacity, u.Percent, timestamp(u.Time)))
	}
	if g := s.LastGrowth; g != nil {
		r.Details = append(r.Details, fmt.Sprintf("grew from %s to %s %s", g.From, g.To, timestamp(g.Time)))
	}
	if dv.Spec.Backup != nil {
		r.Details = append(r.Details, backupsLine(s.Backups))
	}
	return r
}

// backupsLine counts backups and names the newest one ready.
func backupsLine(backups []seedv1alpha1.DemoVolumeBackupStatus) string {
	if len(backups) == 0 {
		return "no backups yet"
	}
	line := "1 backup"
	if len(backups) > 1 {
		line = fmt.Sprintf("%d backups", len(backups))
	}
	for _, b := range backups {
		if b.ReadyToUse {
			return line + ", newest ready " + b.Name
		}
	}
	return line + ", none ready"
}

// timestamp is t as status writes it, in UTC.
func timestamp(t metav1.Time) string {
	return t.UTC().Format(time.RFC3339)
}
