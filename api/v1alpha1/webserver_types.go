package v1alpha1

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultWebServerImage runs nginx as an unprivileged user listening on 8080,
// so its pods pass the restricted Pod Security Standard unchanged.
const DefaultWebServerImage = "docker.io/nginxinc/nginx-unprivileged:1.29.3-alpine"

// WebServer condition types, beside the shared Ready.
const (
	// WebServerAvailable mirrors the Deployment's Available condition: at
	// least the minimum number of replicas is serving.
	WebServerAvailable = "Available"
	// WebServerProgressing mirrors the Deployment's Progressing condition: a
	// rollout (scale or image change) is under way or has finished.
	WebServerProgressing = "Progressing"
	// ReasonProgressDeadlineExceeded is the reason of Progressing, copied
	// from the Deployment's, once a rollout has gone without progress for
	// its deadline.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"

	// ReasonRolledBack is the reason of Ready, and of a Warning event, when
	// the pods of a new image did not become ready within the progress
	// deadline and were put back on the last image that was available.
	ReasonRolledBack = "RolledBack"

	// WebServerScalingLimited is True while the autoscaler runs the most
	// replicas spec.autoscaling allows and would still run more: the CPU
	// is above its target.
	WebServerScalingLimited = "ScalingLimited"
	// ReasonTooManyReplicas is the reason of ScalingLimited when it is
	// True, the autoscaler's own.
	ReasonTooManyReplicas = "TooManyReplicas"
)

// Defaults of a WebServer's rollout, for clients that skip the API
// server's defaulting.
const (
	DefaultProgressDeadlineSeconds = 120
	DefaultAutoRollback            = true
)

// Defaults of a WebServer's autoscaling, for the same clients.
const (
	DefaultMinReplicas                    = 1
	DefaultTargetCPUUtilizationPercentage = 80
)

// WebServerSpec is what the user asks for: nginx pods behind a Service.
//
// +kubebuilder:validation:XValidation:rule="!has(self.nodePort) || self.serviceType != 'ClusterIP'",message="nodePort can only be set when serviceType is NodePort or LoadBalancer"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || (has(self.resources) && has(self.resources.requests) && 'cpu' in self.resources.requests)",message="autoscaling needs a CPU request in resources.requests: the CPU target is a share of it"
type WebServerSpec struct {
	// replicas is the number of nginx pods to run. While autoscaling is
	// set, the autoscaler sets it, through the scale subresource.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas *int32 `json:"replicas,omitempty"`

	// image is the container image the pods run. Changing it rolls the
	// pods over to the new image one by one. The default runs as non-root,
	// as the restricted Pod Security Standard requires.
	// +kubebuilder:default="docker.io/nginxinc/nginx-unprivileged:1.29.3-alpine"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\\\s\\\\v\\\\p{Z}\\\\p{Cc}\\\\x{fffe}\\\\x{ffff}]')",message="image must not contain whitespace or control characters"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image,omitempty"`

	// containerPort is the port the container listens on.
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	ContainerPort int32 `json:"containerPort,omitempty"`

	// port is the port the Service exposes; traffic is forwarded to
	// containerPort.
	// +kubebuilder:default=80
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port int32 `json:"port,omitempty"`

	// serviceType is how the Service is exposed.
	// +kubebuilder:default=ClusterIP
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ClusterIP","urn:alm:descriptor:com.tectonic.ui:select:NodePort","urn:alm:descriptor:com.tectonic.ui:select:LoadBalancer"}
	ServiceType corev1.ServiceType `json:"serviceType,omitempty"`

	// nodePort pins the port opened on every node, for the NodePort and
	// LoadBalancer service types. When unset, Kubernetes picks one.
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	NodePort *int32 `json:"nodePort,omitempty"`

	// resources are the compute requests and limits of the nginx container.
	// A request of CPU, memory or ephemeral storage above its limit is
	// refused here, as the API server would refuse the Deployment.
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || ['cpu', 'memory', 'ephemeral-storage'].all(r, !(r in self.requests) || !(r in self.limits) || !isQuantity(string(self.requests[r])) || !isQuantity(string(self.limits[r])) || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) <= 0)",message="a request of cpu, memory or ephemeral-storage must not exceed its limit"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources corev1.ResourceRequirements `json:"resources,omitempty,omitzero"`

	// rollout is how a new image rolls out, and what happens when its pods
	// do not become ready.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Rollout WebServerRollout `json:"rollout,omitempty,omitzero"`

	// autoscaling has a HorizontalPodAutoscaler set replicas from the
	// pods' CPU use, between minReplicas and maxReplicas. Removing it
	// removes the autoscaler and leaves replicas where it was.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Autoscaling *WebServerAutoscaling `json:"autoscaling,omitempty"`
}

// WebServerAutoscaling is how many pods a WebServer may run, and the CPU
// use it scales them to.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
type WebServerAutoscaling struct {
	// minReplicas is the fewest pods the autoscaler runs.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most pods the autoscaler runs. It cannot exceed
	// 100, the most replicas a WebServer may have.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Maximum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MaxReplicas int32 `json:"maxReplicas"`

	// targetCPUUtilizationPercentage is the pods' average CPU use the
	// autoscaler aims at, in percent of their CPU request.
	// +kubebuilder:default=80
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Target CPU Utilization Percentage",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`

	// behavior is how fast the autoscaler scales up and down (stabilization
	// windows and policies), as autoscaling/v2 spells it. Unset, the
	// autoscaler's defaults: up at once, down after five minutes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Behavior",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Behavior *WebServerScalingBehavior `json:"behavior,omitempty"`
}

// WebServerScalingBehavior is the autoscaler's behavior of autoscaling/v2,
// with the rules its API server applies checked here, when the WebServer
// is written, rather than when the operator writes the autoscaler.
type WebServerScalingBehavior struct {
	// scaleUp is how the autoscaler adds pods. Unset, at once, by up to
	// four pods or doubling every 15 seconds, whichever adds more.
	// +optional
	ScaleUp *WebServerScalingRules `json:"scaleUp,omitempty"`
	// scaleDown is how the autoscaler removes pods. Unset, after a
	// five-minute window, down to what it needs.
	// +optional
	ScaleDown *WebServerScalingRules `json:"scaleDown,omitempty"`
}

// WebServerScalingRules are the autoscaler's rules of one direction.
type WebServerScalingRules struct {
	// stabilizationWindowSeconds is how far back the autoscaler looks at
	// its past recommendations, taking the most cautious of them.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`
	// selectPolicy chooses among the policies: the one that changes most
	// (Max, the default), least (Min), or none (Disabled).
	// +kubebuilder:validation:Enum=Max;Min;Disabled
	// +optional
	SelectPolicy *autoscalingv2.ScalingPolicySelect `json:"selectPolicy,omitempty"`
	// policies limit how many pods a step changes, in a period. Unset, the
	// autoscaler's defaults for the direction.
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	Policies []WebServerScalingPolicy `json:"policies,omitempty"`
}

// WebServerScalingPolicy allows a change of at most value pods (Pods) or
// percent of the current pods (Percent) within periodSeconds.
type WebServerScalingPolicy struct {
	// type is Pods or Percent.
	// +kubebuilder:validation:Enum=Pods;Percent
	// +required
	Type autoscalingv2.HPAScalingPolicyType `json:"type"`
	// value is the number of pods, or the percent of the current pods.
	// +kubebuilder:validation:Minimum=1
	// +required
	Value int32 `json:"value"`
	// periodSeconds is the period the policy holds for.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1800
	// +required
	PeriodSeconds int32 `json:"periodSeconds"`
}

// WebServerAutoscalingStatus is what the autoscaler last observed and
// decided.
type WebServerAutoscalingStatus struct {
	// currentReplicas is how many pods the autoscaler last saw.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// desiredReplicas is how many pods the autoscaler last asked for.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`
	// currentCPUUtilizationPercentage is the pods' average CPU use, in
	// percent of their request, as the autoscaler last read it.
	// +optional
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty"`
	// lastScaleTime is when the autoscaler last changed replicas.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
}

// WebServerRollout is how a WebServer's pods move to a new image.
type WebServerRollout struct {
	// progressDeadlineSeconds is how long a rollout may go without a new
	// pod becoming ready before it counts as failed: the Deployment's
	// progress deadline.
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Progress Deadline Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`

	// autoRollback puts the pods back on the last image that was fully
	// available when a new image fails to roll out by the deadline, and
	// keeps them there until spec.image changes. The spec is left as it is.
	// +kubebuilder:default=true
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Automatic Rollback",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	AutoRollback *bool `json:"autoRollback,omitempty"`
}

// WebServerRollback is a rollout that failed and was taken back.
type WebServerRollback struct {
	// image is the image whose pods did not become ready.
	Image string `json:"image"`
	// to is the image the pods went back to.
	To string `json:"to"`
	// reason is why the new pods did not become ready, as the scheduler or
	// the kubelet said.
	Reason string `json:"reason"`
	// time is when the operator rolled back.
	Time metav1.Time `json:"time"`
}

// WebServerStatus is what the operator observed.
type WebServerStatus struct {
	// replicas is the number of pods the Deployment currently has.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of pods that are ready to serve.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// updatedReplicas is the number of pods that run the current pod
	// template: fewer than replicas while a rollout is under way.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Updated Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// selector is the label selector of the pods, in string form, for the
	// scale subresource (and so for HorizontalPodAutoscalers).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Selector",xDescriptors={"urn:alm:descriptor:text"}
	Selector string `json:"selector,omitempty"`

	// observedGeneration is the generation of the spec this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastAvailableImage is the last image that every pod the spec asked
	// for ran, ready: where a failed rollout goes back to.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Available Image",xDescriptors={"urn:alm:descriptor:text"}
	LastAvailableImage string `json:"lastAvailableImage,omitempty"`

	// rollback is the rollout of spec.image that failed and was taken back;
	// the pods run its "to" image until spec.image changes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Rollback",xDescriptors={"urn:alm:descriptor:text"}
	Rollback *WebServerRollback `json:"rollback,omitempty"`

	// autoscaling is the autoscaler's view, while spec.autoscaling is set.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Autoscaling",xDescriptors={"urn:alm:descriptor:text"}
	Autoscaling *WebServerAutoscalingStatus `json:"autoscaling,omitempty"`

	// conditions are Available, Progressing and Ready, and ScalingLimited
	// while spec.autoscaling is set.
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// WebServer runs nginx as a Deployment named after it and exposes it through
// a Service named <name>-service. Both are kept as the spec says: edited or
// deleted, they are put back.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=ws,categories=seed
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`,priority=1
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.serviceType`,priority=1
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 55",message="name must be at most 55 characters, so that the Service <name>-service fits in 63"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="name must start with a letter and contain only lowercase letters, digits and '-', as the Service name <name>-service requires"
// +operator-sdk:csv:customresourcedefinitions:displayName="Web Server",order=1
// +operator-sdk:csv:customresourcedefinitions:resources={{Deployment,v1,""},{Service,v1,""},{Pod,v1,""},{HorizontalPodAutoscaler,v2,""}}
type WebServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:default={}
	// +optional
	Spec   WebServerSpec   `json:"spec,omitempty"`
	Status WebServerStatus `json:"status,omitempty"`
}

// WebServerList is a list of WebServers.
//
// +kubebuilder:object:root=true
type WebServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebServer `json:"items"`
}

func init() {
	register(&WebServer{}, &WebServerList{})
}

// GetConditions returns the status conditions.
func (w *WebServer) GetConditions() []metav1.Condition { return w.Status.Conditions }

// SetConditions replaces the status conditions.
func (w *WebServer) SetConditions(conditions []metav1.Condition) { w.Status.Conditions = conditions }

// DesiredReplicas is spec.replicas, or its default where a client made the
// WebServer without the API server's defaulting.
func (w *WebServer) DesiredReplicas() int32 {
	if w.Spec.Replicas == nil {
		return 1
	}
	return *w.Spec.Replicas
}

// ProgressDeadlineSeconds is spec.rollout.progressDeadlineSeconds, or its
// default.
func (w *WebServer) ProgressDeadlineSeconds() int32 {
	if w.Spec.Rollout.ProgressDeadlineSeconds == nil {
		return DefaultProgressDeadlineSeconds
	}
	return *w.Spec.Rollout.ProgressDeadlineSeconds
}

// AutoRollback is spec.rollout.autoRollback, or its default.
func (w *WebServer) AutoRollback() bool {
	if w.Spec.Rollout.AutoRollback == nil {
		return DefaultAutoRollback
	}
	return *w.Spec.Rollout.AutoRollback
}

// MinReplicasOrDefault is spec.autoscaling.minReplicas, or its default.
func (a *WebServerAutoscaling) MinReplicasOrDefault() int32 {
	if a.MinReplicas == nil {
		return DefaultMinReplicas
	}
	return *a.MinReplicas
}

// TargetCPU is spec.autoscaling.targetCPUUtilizationPercentage, or its
// default.
func (a *WebServerAutoscaling) TargetCPU() int32 {
	if a.TargetCPUUtilizationPercentage == nil {
		return DefaultTargetCPUUtilizationPercentage
	}
	return *a.TargetCPUUtilizationPercentage
}
