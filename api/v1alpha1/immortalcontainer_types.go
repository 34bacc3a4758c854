package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxStartTimes is how many start times an ImmortalContainer's status keeps:
// the most recent ones. status.podsStarted counts them all.
const MaxStartTimes = 50

// ImmortalContainerSpec is a container that must always be running.
type ImmortalContainerSpec struct {
	// image is the container image to keep running. Changing it replaces
	// the pod.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\s\\\\v\\\\p{Z}\\\\p{Cc}\\\\x{fffe}\\\\x{ffff}]')",message="image must not contain whitespace or control characters"
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// command replaces the image's entrypoint. The control characters that
	// server-side apply cannot carry (U+007F to U+009F, U+0085 aside, and
	// U+FFFE, U+FFFF) are refused.
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +kubebuilder:validation:items:Pattern=`^[^\x{7f}-\x{84}\x{86}-\x{9f}\x{fffe}\x{ffff}]*$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Command",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Command []string `json:"command,omitempty"`

	// args are the arguments to the entrypoint. The control characters that
	// server-side apply cannot carry (U+007F to U+009F, U+0085 aside, and
	// U+FFFE, U+FFFF) are refused.
	// +kubebuilder:validation:MaxItems=256
	// +listType=atomic
	// +kubebuilder:validation:items:Pattern=`^[^\x{7f}-\x{84}\x{86}-\x{9f}\x{fffe}\x{ffff}]*$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Arguments",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Args []string `json:"args,omitempty"`

	// env are environment variables of the container.
	// +kubebuilder:validation:MaxItems=128
	// +listType=map
	// +listMapKey=name
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment Variables",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Env []EnvVar `json:"env,omitempty"`

	// resources are the compute requests and limits of the container. A
	// request of CPU, memory or ephemeral storage above its limit is refused
	// here, as the API server would refuse the pod.
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || ['cpu', 'memory', 'ephemeral-storage'].all(r, !(r in self.requests) || !(r in self.limits) || !isQuantity(string(self.requests[r])) || !isQuantity(string(self.limits[r])) || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) <= 0)",message="a request of cpu, memory or ephemeral-storage must not exceed its limit"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources corev1.ResourceRequirements `json:"resources,omitempty,omitzero"`

	// runAsUser is the user the container runs as, for images whose
	// default user is root: the pod runs under the restricted Pod Security
	// Standard, which does not allow root.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Run As User",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RunAsUser *int64 `json:"runAsUser,omitempty"`
}

// EnvVar is an environment variable of the container, as in a pod, with
// its name checked as the Pod API checks it.
type EnvVar struct {
	// name of the variable: printable ASCII characters other than '='.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Pattern=`^[ -<>-~]+$`
	Name string `json:"name"`

	// value of the variable. $(VAR) references to variables defined
	// before it are expanded, as in a pod; $$ escapes them. The control
	// characters that server-side apply cannot carry (U+007F to U+009F,
	// U+0085 aside, and U+FFFE, U+FFFF) are refused.
	// +optional
	// +kubebuilder:validation:Pattern=`^[^\x{7f}-\x{84}\x{86}-\x{9f}\x{fffe}\x{ffff}]*$`
	Value string `json:"value,omitempty"`

	// valueFrom takes the value from a field of the pod, a resource of the
	// container, a ConfigMap or a Secret.
	// +optional
	ValueFrom *corev1.EnvVarSource `json:"valueFrom,omitempty"`
}

// ImmortalContainerStatus is what the operator observed of the pods.
type ImmortalContainerStatus struct {
	// currentPod is the name of the pod running the container now.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Current Pod",xDescriptors={"urn:alm:descriptor:io.kubernetes:Pod"}
	CurrentPod string `json:"currentPod,omitempty"`

	// podUID is the UID of the last pod counted in podsStarted: every pod
	// has the same name, and the UID tells them apart.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Pod UID",xDescriptors={"urn:alm:descriptor:text"}
	PodUID string `json:"podUID,omitempty"`

	// startTimes are when the pods were started, oldest first: the last 50.
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Start Times",xDescriptors={"urn:alm:descriptor:text"}
	StartTimes []metav1.Time `json:"startTimes,omitempty"`

	// podsStarted counts every pod started so far.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Pods Started",xDescriptors={"urn:alm:descriptor:text"}
	PodsStarted int64 `json:"podsStarted,omitempty"`

	// nextStartTime, while pods keep ending soon after they start, is when
	// the next one will be started.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Next Start Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	NextStartTime *metav1.Time `json:"nextStartTime,omitempty"`

	// observedGeneration is the generation of the spec this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are Ready (the current pod runs the current spec and is
	// ready).
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ImmortalContainer keeps one pod, <name>-immortalpod, running a container:
// deleted, or ended, it is started again, with a growing delay while it
// keeps ending soon after it starts.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ic,categories=seed
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Pod",type=string,JSONPath=`.status.currentPod`
// +kubebuilder:printcolumn:name="Starts",type=integer,JSONPath=`.status.podsStarted`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="name must be at most 63 characters, as its pod carries it in a label"
// +operator-sdk:csv:customresourcedefinitions:displayName="Immortal Container",order=4
// +operator-sdk:csv:customresourcedefinitions:resources={{Pod,v1,""}}
type ImmortalContainer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   ImmortalContainerSpec   `json:"spec"`
	Status ImmortalContainerStatus `json:"status,omitempty"`
}

// ImmortalContainerList is a list of ImmortalContainers.
//
// +kubebuilder:object:root=true
type ImmortalContainerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ImmortalContainer `json:"items"`
}

func init() {
	register(&ImmortalContainer{}, &ImmortalContainerList{})
}

// GetConditions returns the status conditions.
func (i *ImmortalContainer) GetConditions() []metav1.Condition { return i.Status.Conditions }

// SetConditions replaces the status conditions.
func (i *ImmortalContainer) SetConditions(conditions []metav1.Condition) {
	i.Status.Conditions = conditions
}
