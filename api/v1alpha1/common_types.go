package v1alpha1

// Condition types and reasons shared by every kind. Kind-specific ones live
// beside the kind's type.
const (
	// ConditionReady is true when everything the resource asked for is in
	// place and working. Every kind reports it, so `kubectl wait
	// --for=condition=Ready` works the same way for all of them.
	ConditionReady = "Ready"

	// ReasonReconcileFailed means the operator could not create or update an
	// owned object; the message carries the API server's answer.
	ReasonReconcileFailed = "ReconcileFailed"

	// ReasonNameConflict means an object of the name the resource would give
	// one of its objects exists and is not the resource's. The operator
	// leaves that object as it is; the message names it.
	ReasonNameConflict = "NameConflict"
)

// CronSchedule is a schedule in cron format: five fields (minute, hour,
// day of month, month, day of week), or a macro such as @hourly.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=128
// +kubebuilder:validation:XValidation:rule="self.matches('^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|@every +([0-9]+(\\\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+|[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+)$')",message="schedule must be five cron fields (minute hour day-of-month month day-of-week, such as '*/5 * * * *') or a macro such as @hourly, with no TZ or CRON_TZ prefix: a ScheduledEcho sets its time zone with timeZone, a DemoVolume's backups run in UTC"
// +kubebuilder:validation:XValidation:rule="self.startsWith('@') || self.matches('^ *(\\\\*|\\\\?|(0*[1-5]?[0-9])(-(0*[1-5]?[0-9]))?)(/[1-9][0-9]*)?(,(\\\\*|\\\\?|(0*[1-5]?[0-9])(-(0*[1-5]?[0-9]))?)(/[1-9][0-9]*)?)* +(\\\\*|\\\\?|(0*(1?[0-9]|2[0-3]))(-(0*(1?[0-9]|2[0-3])))?)(/[1-9][0-9]*)?(,(\\\\*|\\\\?|(0*(1?[0-9]|2[0-3]))(-(0*(1?[0-9]|2[0-3])))?)(/[1-9][0-9]*)?)* +(\\\\*|\\\\?|(0*([1-9]|[12][0-9]|3[01]))(-(0*([1-9]|[12][0-9]|3[01])))?)(/[1-9][0-9]*)?(,(\\\\*|\\\\?|(0*([1-9]|[12][0-9]|3[01]))(-(0*([1-9]|[12][0-9]|3[01])))?)(/[1-9][0-9]*)?)* +(\\\\*|\\\\?|(0*([1-9]|1[0-2])|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0*([1-9]|1[0-2])|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?(,(\\\\*|\\\\?|(0*([1-9]|1[0-2])|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0*([1-9]|1[0-2])|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?)* +(\\\\*|\\\\?|(0*[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0*[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?(,(\\\\*|\\\\?|(0*[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0*[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?)* *$')",message="each cron field must be *, a value, a range such as 1-5, or a comma-separated list of them, each with an optional step such as */15; minutes are 0-59, hours 0-23, days of the month 1-31, months 1-12 or JAN-DEC, days of the week 0-6 (Sunday is 0) or SUN-SAT"
type CronSchedule string
