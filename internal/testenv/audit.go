package testenv

import (
	"bufio"
	"encoding/json"
	"io"
	"os"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AuditLog is where the API server's audit log of a run starts: the file
// and the offset it had when the run began.
type AuditLog struct {
	path   string
	offset int64
}

// StartAuditLog marks the end of the audit log AUDIT_LOG names (the local
// cluster's, which the Makefile passes to its suites), before a run.
func StartAuditLog() AuditLog {
	path := os.Getenv("AUDIT_LOG")
	Expect(path).NotTo(BeEmpty(), "AUDIT_LOG must name the API server's audit log: run the suite through make")
	info, err := os.Stat(path)
	Expect(err).NotTo(HaveOccurred(), "the local cluster writes an audit log: restart it with `make cluster-down cluster-up`")
	return AuditLog{path: path, offset: info.Size()}
}

// AuditEvent is what the audit log says of one request, at the Metadata
// level.
type AuditEvent struct {
	Verb string `json:"verb"`
	User struct {
		Username string `json:"username"`
		// Extra names, for a ServiceAccount token bound to a pod, the pod.
		Extra map[string][]string `json:"extra"`
	} `json:"user"`
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

// Code is the HTTP status of the answer, 0 if the log has none.
func (e AuditEvent) Code() int32 {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// Writes tells whether the request would change what it names.
func (e AuditEvent) Writes() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// Pod is the pod whose ServiceAccount token made the request, or "".
func (e AuditEvent) Pod() string {
	if names := e.User.Extra["authentication.kubernetes.io/pod-name"]; len(names) > 0 {
		return names[0]
	}
	return ""
}

// Events are the requests of user on objects since the run began, in the
// order the API server finished them.
func (a AuditLog) Events(user string) []AuditEvent {
	return a.Matching(func(e AuditEvent) bool { return e.User.Username == user })
}

// Matching are the requests on objects since the run began that keep
// says to keep, in the order the API server finished them.
func (a AuditLog) Matching(keep func(AuditEvent) bool) []AuditEvent {
	f, err := os.Open(a.path)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = f.Close() }()
	_, err = f.Seek(a.offset, io.SeekStart)
	Expect(err).NotTo(HaveOccurred())

	var events []AuditEvent
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for lines.Scan() {
		var event AuditEvent
		Expect(json.Unmarshal(lines.Bytes(), &event)).To(Succeed(), "audit event %s", lines.Text())
		if event.ObjectRef != nil && keep(event) {
			events = append(events, event)
		}
	}
	Expect(lines.Err()).NotTo(HaveOccurred())
	return events
}
