package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultEchoImage is a small image with an echo binary, pinned so that every
// Echo prints with the same program.
const DefaultEchoImage = "docker.io/library/busybox:1.37.0"

// Echo condition types, beside the shared Ready.
const (
	// EchoComplete is true once the Job has printed the message.
	EchoComplete = "Complete"
	// EchoFailed is true once the Job has given up.
	EchoFailed = "Failed"
)

// EchoPhase is where an Echo's Job is in its life.
//
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed
type EchoPhase string

// The phases of an Echo.
const (
	EchoPending     EchoPhase = "Pending"
	EchoRunning     EchoPhase = "Running"
	EchoSucceeded   EchoPhase = "Succeeded"
	EchoFailedPhase EchoPhase = "Failed"
)

// EchoSpec is a message to print once.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: an Echo runs once; to print again, delete this Echo and create it again, or create one with another name"
type EchoSpec struct {
	// message is printed by the Job's container, as it is: no shell runs it.
	// The control characters that server-side apply cannot carry (U+007F
	// to U+009F, U+0085 aside, and U+FFFE, U+FFFF) are refused.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\x{7f}-\\\\x{84}\\\\x{86}-\\\\x{9f}\\\\x{fffe}\\\\x{ffff}]')",message="message must not contain the control characters U+007F to U+009F (U+0085 aside), U+FFFE or U+FFFF, which server-side apply cannot carry"
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Message",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Message string `json:"message"`

	// image runs `echo`. The default is a pinned busybox; another image
	// must have an `echo` program on its PATH.
	// +kubebuilder:default="docker.io/library/busybox:1.37.0"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\s\\\\v\\\\p{Z}\\\\p{Cc}\\\\x{fffe}\\\\x{ffff}]')",message="image must not contain whitespace or control characters"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image,omitempty"`

	// backoffLimit is how many times a failed pod is retried before the
	// Echo fails.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Backoff Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`

	// ttlSecondsAfterFinished, when set, deletes the Job (and its pod and
	// log) that long after it finished. The Echo keeps its status.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="TTL Seconds After Finished",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// EchoStatus is what the operator observed of the Job.
type EchoStatus struct {
	// jobName is the Job that prints the message.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Job",xDescriptors={"urn:alm:descriptor:io.kubernetes:Job"}
	JobName string `json:"jobName,omitempty"`

	// phase is Pending until the Job's pod runs, then Running, then
	// Succeeded or Failed.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Phase",xDescriptors={"urn:alm:descriptor:io.kubernetes.phase"}
	Phase EchoPhase `json:"phase,omitempty"`

	// startTime is when the Job started, recorded once the Echo is past
	// Pending.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Start Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the Job finished, whether it succeeded or
	// failed: when the Job controller knew how it ends, which may be a
	// moment before the Job's own completionTime.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Completion Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// observedGeneration is the generation of the spec this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are Complete, Failed and Ready (true once the message is
	// printed).
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Echo prints a message once, with a Job named after it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=echoes,categories=seed
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Job",type=string,JSONPath=`.status.jobName`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.spec.message`,priority=1
// +kubebuilder:printcolumn:name="Completed",type=date,JSONPath=`.status.completionTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="name must be at most 63 characters, as the Job's pods carry it in a label"
// +operator-sdk:csv:customresourcedefinitions:displayName="Echo",order=2
// +operator-sdk:csv:customresourcedefinitions:resources={{Job,v1,""},{Pod,v1,""}}
type Echo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   EchoSpec   `json:"spec"`
	Status EchoStatus `json:"status,omitempty"`
}

// EchoList is a list of Echoes.
//
// +kubebuilder:object:root=true
type EchoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Echo `json:"items"`
}

func init() {
	register(&Echo{}, &EchoList{})
}

// GetConditions returns the status conditions.
func (e *Echo) GetConditions() []metav1.Condition { return e.Status.Conditions }

// SetConditions replaces the status conditions.
func (e *Echo) SetConditions(conditions []metav1.Condition) { e.Status.Conditions = conditions }
