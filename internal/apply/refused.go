package apply

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IgnoreRefused returns nil when every failure in err is the API server
// refusing an object as invalid (422), or refusing to create it in a
// namespace being deleted, and err otherwise. A reconciler returns what it
// gives for the failures of applying the objects it built from the spec:
// the same request would be refused again, so retrying with back-off only
// fills the log, until the spec changes or the refused object's state does,
// and either brings a reconcile of its own; a namespace being deleted takes
// the owner with it. The status still reports err, and the apply a warning
// event, unless the namespace is being deleted (IsNamespaceTerminating).
func IgnoreRefused(err error) error {
	if err == nil || every(err, refused) {
		return nil
	}
	return err
}

// IgnoreNamespaceTerminating returns nil when every failure in err is the
// namespace lifecycle admission's refusal to create an object in a
// namespace being deleted, and err otherwise. It is for what a reconciler
// makes when it is due rather than as the spec says (a backup), whose
// other refusals are not reported in the status and must not be dropped:
// the namespace takes the owner with it, and until it is gone a retry with
// back-off would only be refused again.
func IgnoreNamespaceTerminating(err error) error {
	if err == nil || every(err, namespaceTerminating) {
		return nil
	}
	return err
}

// IsNamespaceTerminating tells whether a failure in err is the namespace
// lifecycle admission's refusal to create an object in a namespace being
// deleted. A reconciler that sees it writes no status: the namespace takes
// the owner with it, and the namespace's own status says what holds it
// back. Writing the refusal would cost a write per owned object the
// namespace's deletion removes, each bringing a reconcile of its own.
func IsNamespaceTerminating(err error) bool {
	return err != nil && !every(err, func(err error) bool { return !namespaceTerminating(err) })
}

// every tells whether is holds for err or, through wrapping, for each
// error joined in it.
func every(err error, is func(error) bool) bool {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		for _, joined := range e.Unwrap() {
			if !every(joined, is) {
				return false
			}
		}
		return true
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return every(inner, is)
		}
	}
	return is(err)
}

// refused tells whether err, neither joined nor wrapped, is an Invalid
// answer from the API server, the namespace lifecycle admission's refusal
// to create an object in a namespace being deleted, or a name conflict
// (the object in the way is watched, and brings the next reconcile).
func refused(err error) bool {
	if _, ok := err.(*NameConflictError); ok {
		return true
	}
	status, ok := err.(apierrors.APIStatus)
	return ok && (status.Status().Reason == metav1.StatusReasonInvalid || namespaceTerminating(err))
}

// namespaceTerminating tells whether err is the namespace lifecycle
// admission's refusal to create an object in a namespace being deleted.
func namespaceTerminating(err error) bool {
	return apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}

// maxRefusal is the longest message, in bytes, of a refusal as summarized.
const maxRefusal = 512

// summarized is err with an Invalid answer's message cut down to the
// fields and the rules they broke, which is what a person needs to read in
// a condition or an event: the API server's message can carry whole
// objects, dumped as Go values, of several kilobytes. Any other err is
// returned as it is.
func summarized(err error) error {
	var statusErr *apierrors.StatusError
	if !errors.As(err, &statusErr) {
		return err
	}
	status := statusErr.ErrStatus
	if status.Reason != metav1.StatusReasonInvalid || status.Details == nil || len(status.Details.Causes) == 0 {
		return err
	}
	details := *status.Details
	details.Causes = make([]metav1.StatusCause, len(status.Details.Causes))
	rules := make([]string, len(details.Causes))
	for i, cause := range status.Details.Causes {
		cause.Message = rule(cause.Message)
		details.Causes[i] = cause
		rules[i] = cause.Message
		if cause.Field != "" {
			rules[i] = cause.Field + ": " + cause.Message
		}
	}
	status.Details = &details
	kind := details.Kind
	if details.Group != "" {
		kind += "." + details.Group
	}
	status.Message = truncate(fmt.Sprintf("%s %q is invalid: %s", kind, details.Name, strings.Join(rules, "; ")), maxRefusal)
	return &apierrors.StatusError{ErrStatus: status}
}

// maxValue is the longest value, in bytes, a summarized rule quotes.
const maxValue = 64

// rule is a cause's message without the dump of a long value it refused
// ("Invalid value: core.PodTemplateSpec{...}: field is immutable" becomes
// "field is immutable"), and without the diff that follows its first line
// ("Forbidden: pod updates may not change fields ...").
func rule(message string) string {
	message, _, _ = strings.Cut(message, "\n")
	const invalid = "Invalid value: "
	if !strings.HasPrefix(message, invalid) || len(message) <= len(invalid)+maxValue {
		return message
	}
	if i := strings.LastIndex(message, ": "); i > len(invalid) {
		return message[i+2:]
	}
	return truncate(message, len(invalid)+maxValue)
}
