package immortalcontainer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// backoffBase is the wait before the third of a run of quick starts:
	// the first replacement starts at once.
	backoffBase = 10 * time.Second
	// backoffCap bounds the wait, as the kubelet's crash loop back-off does.
	backoffCap = 5 * time.Minute
	// quickRestart is how soon after the previous start a start counts as
	// one more in a run of quick restarts. A pod that lived longer resets
	// the back-off.
	quickRestart = 10 * time.Minute
)

// nextStart is the earliest time a new pod may start, given when the
// earlier pods started (oldest first). While pods keep ending soon after
// they start, the wait after each start doubles, from backoffBase up to
// backoffCap, so a pod that cannot run costs the cluster little.
func nextStart(startTimes []metav1.Time) time.Time {
	if len(startTimes) == 0 {
		return time.Time{}
	}
	quick := 0
	for i := len(startTimes) - 1; i > 0; i-- {
		if startTimes[i].Sub(startTimes[i-1].Time) >= quickRestart {
			break
		}
		quick++
	}
	last := startTimes[len(startTimes)-1].Time
	if quick == 0 {
		return last
	}
	wait := backoffBase
	for range quick - 1 {
		wait *= 2
		if wait >= backoffCap {
			wait = backoffCap
			break
		}
	}
	return last.Add(wait)
}
