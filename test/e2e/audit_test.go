//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// auditLog is where the API server's audit log of a run starts: the file
// and the offset it had when the run began.
type auditLog struct {
	path   string
	offset int64
}

// startAuditLog marks the audit log's end, before a run.
func startAuditLog() auditLog {
	path := os.Getenv("AUDIT_LOG")
	Expect(path).NotTo(BeEmpty(), "AUDIT_LOG must name the API server's audit log: run `make test-e2e`")
	info, err := os.Stat(path)
	Expect(err).NotTo(HaveOccurred(), "the local cluster writes an audit log: restart it with `make cluster-down cluster-up`")
	return auditLog{path: path, offset: info.Size()}
}

// auditEvent is what the audit log says of one request, at the Metadata
// level.
type auditEvent struct {
	Verb      string `json:"verb"`
	User      struct{ Username string }
	ObjectRef *struct {
		APIGroup    string `json:"apiGroup"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *metav1.Status    `json:"responseStatus"`
	Received       metav1.MicroTime  `json:"requestReceivedTimestamp"`
	Answered       metav1.MicroTime  `json:"stageTimestamp"`
	Annotations    map[string]string `json:"annotations"`
}

// code is the HTTP status of the answer, 0 if the log has none.
func (e auditEvent) code() int32 {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// events are the requests of user on objects since the run began, in the
// order the API server finished them.
func (a auditLog) events(user string) []auditEvent {
	return a.matching(func(e auditEvent) bool { return e.User.Username == user })
}

// matching are the requests on objects since the run began that keep
// says to keep, in the order the API server finished them.
func (a auditLog) matching(keep func(auditEvent) bool) []auditEvent {
	f, err := os.Open(a.path)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = f.Close() }()
	_, err = f.Seek(a.offset, io.SeekStart)
	Expect(err).NotTo(HaveOccurred())

	var events []auditEvent
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for lines.Scan() {
		var event auditEvent
		Expect(json.Unmarshal(lines.Bytes(), &event)).To(Succeed(), "audit event %s", lines.Text())
		if event.ObjectRef != nil && keep(event) {
			events = append(events, event)
		}
	}
	Expect(lines.Err()).NotTo(HaveOccurred())
	return events
}

// retriedTooSoon counts the requests answered 429 after which the same verb
// on the same object came back within wait, and how many of those a client
// that waits out every Retry-After (wait at least) may make: client-go
// tries a request ten times more, each after its Retry-After, then gives
// up, and the caller may then ask again at once. So of every eleven 429s
// in a row on one verb and object, one at most is followed sooner.
func retriedTooSoon(events []auditEvent, wait time.Duration) (tooSoon, allowed int) {
	type request struct{ verb, group, resource, subresource, namespace, name string }
	last429 := map[request]time.Time{}
	inARow := map[request]int{}
	for _, e := range events {
		r := request{e.Verb, e.ObjectRef.APIGroup, e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Namespace, e.ObjectRef.Name}
		if at, ok := last429[r]; ok && e.Received.Sub(at) < wait {
			tooSoon++
		}
		delete(last429, r)
		if e.code() != 429 {
			inARow[r] = 0
			continue
		}
		last429[r] = e.Answered.Time
		if inARow[r]++; inARow[r]%11 == 0 {
			allowed++
		}
	}
	return tooSoon, allowed
}
