package v1alpha1

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScheduledEchoSpec is a message to print on a schedule.
type ScheduledEchoSpec struct {
	// message is printed by each run's container, as it is: no shell runs
	// it. The control characters that server-side apply cannot carry
	// (U+007F to U+009F, U+0085 aside, and U+FFFE, U+FFFF) are refused.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\x{7f}-\\\\x{84}\\\\x{86}-\\\\x{9f}\\\\x{fffe}\\\\x{ffff}]')",message="message must not contain the control characters U+007F to U+009F (U+0085 aside), U+FFFE or U+FFFF, which server-side apply cannot carry"
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Message",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Message string `json:"message"`

	// schedule is when to print, in cron format: five fields (minute, hour,
	// day of month, month, day of week), or a macro such as @hourly.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Schedule",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Schedule CronSchedule `json:"schedule"`

	// timeZone is the IANA time zone the schedule is in, such as
	// Europe/Paris. The default is the time zone of kube-controller-manager.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Time Zone",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	TimeZone *string `json:"timeZone,omitempty"`

	// suspend stops new runs; runs already started finish.
	// +kubebuilder:default=false
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Suspend",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Suspend *bool `json:"suspend,omitempty"`

	// concurrencyPolicy says what to do when a run is due while the last
	// one is still going: Forbid skips the new run, Allow runs both,
	// Replace stops the old one.
	// +kubebuilder:default=Forbid
	// +kubebuilder:validation:Enum=Allow;Forbid;Replace
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Concurrency Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Forbid","urn:alm:descriptor:com.tectonic.ui:select:Allow","urn:alm:descriptor:com.tectonic.ui:select:Replace"}
	ConcurrencyPolicy batchv1.ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// startingDeadlineSeconds is how late a missed run may still start;
	// later than that, it is skipped.
	// +kubebuilder:validation:Minimum=1
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Starting Deadline Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// successfulJobsHistoryLimit is how many finished successful runs are
	// kept, with their logs.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Successful Jobs History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many failed runs are kept, with their
	// logs.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Failed Jobs History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`

	// image runs `echo`. The default is a pinned busybox; another image
	// must have an `echo` program on its PATH.
	// +kubebuilder:default="docker.io/library/busybox:1.37.0"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\s\\\\v\\\\p{Z}\\\\p{Cc}\\\\x{fffe}\\\\x{ffff}]')",message="image must not contain whitespace or control characters"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image,omitempty"`
}

// ScheduledEchoStatus is what the operator observed of the CronJob.
type ScheduledEchoStatus struct {
	// cronJobName is the CronJob that runs the schedule.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="CronJob",xDescriptors={"urn:alm:descriptor:io.kubernetes:CronJob"}
	CronJobName string `json:"cronJobName,omitempty"`

	// lastScheduleTime is when a run was last started.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Schedule Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when a run last succeeded.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Successful Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// active are the names of the Jobs running now.
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Active Jobs",xDescriptors={"urn:alm:descriptor:text"}
	Active []string `json:"active,omitempty"`

	// observedGeneration is the generation of the spec this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are Ready (the CronJob is in place as the spec says) and
	// Suspended.
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ScheduledEchoSuspended is true while no new runs start.
const ScheduledEchoSuspended = "Suspended"

// ScheduledEcho prints a message on a schedule, with a CronJob named after
// it. Edited or deleted, the CronJob is put back.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=scheduledechoes,shortName=secho,categories=seed
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=integer,JSONPath=`.status.active.size()`,priority=1
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="name must be at most 52 characters: the CronJob <name> adds 11 characters to name its Jobs, which must fit in 63"
// +operator-sdk:csv:customresourcedefinitions:displayName="Scheduled Echo",order=3
// +operator-sdk:csv:customresourcedefinitions:resources={{CronJob,v1,""},{Job,v1,""},{Pod,v1,""}}
type ScheduledEcho struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   ScheduledEchoSpec   `json:"spec"`
	Status ScheduledEchoStatus `json:"status,omitempty"`
}

// ScheduledEchoList is a list of ScheduledEchoes.
//
// +kubebuilder:object:root=true
type ScheduledEchoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ScheduledEcho `json:"items"`
}

func init() {
	register(&ScheduledEcho{}, &ScheduledEchoList{})
}

// GetConditions returns the status conditions.
func (s *ScheduledEcho) GetConditions() []metav1.Condition { return s.Status.Conditions }

// SetConditions replaces the status conditions.
func (s *ScheduledEcho) SetConditions(conditions []metav1.Condition) {
	s.Status.Conditions = conditions
}
