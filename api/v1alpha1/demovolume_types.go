package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DemoVolume condition types, beside the shared Ready.
const (
	// DemoVolumeBound is true once the claim is bound to a volume.
	DemoVolumeBound = "Bound"
	// DemoVolumeResizing is true while the claim grows to a new size.
	DemoVolumeResizing = "Resizing"
	// DemoVolumeBackedUp is true when the newest backup is ready to
	// restore from, with spec.backup set.
	DemoVolumeBackedUp = "BackedUp"
	// DemoVolumeRestored is true when the claim was made from a backup,
	// the one its message names.
	DemoVolumeRestored = "Restored"
	// DemoVolumeAtMaxSize is true when autoGrow has grown the volume to
	// its maxSize and the volume is still fuller than its threshold.
	DemoVolumeAtMaxSize = "AtMaxSize"
)

// BackupAnnotation asks for a backup on demand: the operator takes one for
// each new value, such as a time stamp, and records the value in
// status.lastBackupRequest.
const BackupAnnotation = "seed.example.com/backup-request"

// ReclaimPolicy says what happens to the claim, and so to its data, when
// the DemoVolume is deleted.
//
// +kubebuilder:validation:Enum=Retain;Delete
type ReclaimPolicy string

// The reclaim policies of a DemoVolume.
const (
	// ReclaimRetain keeps the claim, no longer owned, when the DemoVolume
	// is deleted.
	ReclaimRetain ReclaimPolicy = "Retain"
	// ReclaimDelete deletes the claim with the DemoVolume.
	ReclaimDelete ReclaimPolicy = "Delete"
)

// DemoVolumeSpec is a volume of a given size.
//
// +kubebuilder:validation:XValidation:rule="has(self.storageClassName) == has(oldSelf.storageClassName)",message="storageClassName is immutable: a claim cannot move to another storage class"
// +kubebuilder:validation:XValidation:rule="has(self.restoreFrom) == has(oldSelf.restoreFrom)",message="restoreFrom is immutable: it applies when the claim is made"
// +kubebuilder:validation:XValidation:rule="!has(self.autoGrow) || self.autoGrow.maxSize >= self.size",message="autoGrow.maxSize must be at least size"
type DemoVolumeSpec struct {
	// name is a display name for the volume, copied to status.name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// size is the capacity asked for, in GiB. It can grow (when the
	// storage class allows volume expansion) but never shrink.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="size cannot shrink: a PersistentVolumeClaim can only grow"
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size (GiB)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Size int32 `json:"size"`

	// storageClassName is the storage class of the claim. When unset, the
	// cluster's default storage class is used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="storageClassName is immutable: a claim cannot move to another storage class"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Storage Class",xDescriptors={"urn:alm:descriptor:io.kubernetes:StorageClass"}
	StorageClassName *string `json:"storageClassName,omitempty"`

	// accessModes are how the volume may be mounted.
	// +kubebuilder:default={ReadWriteOnce}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:Enum=ReadWriteOnce;ReadOnlyMany;ReadWriteMany;ReadWriteOncePod
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="accessModes are immutable once the claim exists"
	// +listType=set
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Access Modes",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes,omitempty"`

	// reclaimPolicy is what happens to the claim when the DemoVolume is
	// deleted: Retain keeps it and its data (no longer owned, labelled
	// seed.example.com/retained=true), Delete deletes it.
	// +kubebuilder:default=Retain
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Reclaim Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Retain","urn:alm:descriptor:com.tectonic.ui:select:Delete"}
	ReclaimPolicy ReclaimPolicy `json:"reclaimPolicy,omitempty"`

	// backup takes backups of the volume, as VolumeSnapshots of its claim,
	// on a schedule and on demand (the seed.example.com/backup-request
	// annotation), and keeps the newest.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Backup",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Backup *DemoVolumeBackup `json:"backup,omitempty"`

	// restoreFrom makes the claim from a backup, a VolumeSnapshot the
	// operator took of a DemoVolume in this namespace, rather than empty.
	// It applies when the claim is made, and cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="restoreFrom is immutable: it applies when the claim is made"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Restore From",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	RestoreFrom *DemoVolumeRestoreSource `json:"restoreFrom,omitempty"`

	// autoGrow expands the claim as it fills: by step each time its usage,
	// as the kubelet reports it, passes thresholdPercent, up to maxSize.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Auto Grow",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	AutoGrow *DemoVolumeAutoGrow `json:"autoGrow,omitempty"`
}

// DemoVolumeAutoGrow is when and how far a volume grows by itself.
type DemoVolumeAutoGrow struct {
	// thresholdPercent is how full the volume may get before it grows.
	// +kubebuilder:default=80
	// +kubebuilder:validation:Minimum=50
	// +kubebuilder:validation:Maximum=99
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Threshold (%)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	ThresholdPercent int32 `json:"thresholdPercent,omitempty"`

	// step is how much it grows each time: GiB (such as 1), or a
	// percentage of its size (such as 50%), rounded up to a whole GiB.
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 1024 : self.matches('^([1-9][0-9]?|100)%$')",message="step must be a whole number of GiB from 1 to 1024, or a percentage from 1% to 100%"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Step",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Step *intstr.IntOrString `json:"step,omitempty"`

	// maxSize is the size, in GiB, the volume never grows past.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Size (GiB)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MaxSize int32 `json:"maxSize"`
}

// DemoVolumeUsage is how full the volume was when the kubelet last
// measured it.
type DemoVolumeUsage struct {
	// used is the bytes in use, such as 850Mi.
	Used string `json:"used"`
	// capacity is the file system's size, such as 1Gi.
	Capacity string `json:"capacity"`
	// percent is used as a share of capacity, rounded down.
	Percent int32 `json:"percent"`
	// time is when the operator read it.
	Time metav1.Time `json:"time"`
}

// DemoVolumeGrowth is a growth autoGrow made.
type DemoVolumeGrowth struct {
	// time is when the operator grew the claim.
	Time metav1.Time `json:"time"`
	// from and to are the claim's sizes before and after, such as 1Gi
	// and 2Gi.
	From string `json:"from"`
	To   string `json:"to"`
	// measuredCapacity is the file system's size in the measurement the
	// growth was decided on. The next growth is decided only on a
	// measurement of a larger file system, the grown one: the kubelet
	// measures about each minute, and until then reports the old one.
	// +optional
	MeasuredCapacity string `json:"measuredCapacity,omitempty"`
}

// DemoVolumeBackup is when to back a volume up, and how many backups to
// keep.
type DemoVolumeBackup struct {
	// schedule is when to take a backup, in cron format (in UTC); without
	// it, backups are taken on demand only.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Schedule",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Schedule CronSchedule `json:"schedule,omitempty"`

	// keep is how many backups to keep: the oldest beyond it are deleted.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Keep",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Keep int32 `json:"keep,omitempty"`

	// volumeSnapshotClassName is the class of the backups. When unset,
	// the default VolumeSnapshotClass of the claim's CSI driver is used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume Snapshot Class",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	VolumeSnapshotClassName *string `json:"volumeSnapshotClassName,omitempty"`

	// restoreOnLoss makes a claim that was deleted or lost again from the
	// newest ready backup, rather than empty.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Restore On Loss",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	RestoreOnLoss bool `json:"restoreOnLoss,omitempty"`
}

// DemoVolumeRestoreSource names the backup a claim is made from.
type DemoVolumeRestoreSource struct {
	// backupName is the VolumeSnapshot, as status.backups lists it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Backup Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	BackupName string `json:"backupName"`
}

// DemoVolumeBackupStatus is one backup.
type DemoVolumeBackupStatus struct {
	// name is the VolumeSnapshot's.
	Name string `json:"name"`
	// creationTime is when the snapshot was taken.
	// +optional
	CreationTime *metav1.Time `json:"creationTime,omitempty"`
	// readyToUse tells whether the backup can be restored from.
	ReadyToUse bool `json:"readyToUse"`
	// size is the least a volume restored from it needs, such as 1Gi.
	// +optional
	Size string `json:"size,omitempty"`
	// error is the snapshotter's, when taking the backup failed.
	// +optional
	Error string `json:"error,omitempty"`
}

// DemoVolumeStatus is what the operator observed of the claim.
type DemoVolumeStatus struct {
	// name is spec.name, once the claim for it is in place.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Name",xDescriptors={"urn:alm:descriptor:text"}
	Name string `json:"name,omitempty"`

	// claimName is the PersistentVolumeClaim.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="PersistentVolumeClaim",xDescriptors={"urn:alm:descriptor:io.kubernetes:PersistentVolumeClaim"}
	ClaimName string `json:"claimName,omitempty"`

	// phase is the claim's phase: Pending, Bound or Lost.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Phase",xDescriptors={"urn:alm:descriptor:io.kubernetes.phase"}
	Phase corev1.PersistentVolumeClaimPhase `json:"phase,omitempty"`

	// capacity is the size of the bound volume, such as 10Gi.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Capacity",xDescriptors={"urn:alm:descriptor:text"}
	Capacity string `json:"capacity,omitempty"`

	// observedGeneration is the generation of the spec this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// backups are the volume's backups, the newest first.
	// +listType=map
	// +listMapKey=name
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Backups",xDescriptors={"urn:alm:descriptor:text"}
	Backups []DemoVolumeBackupStatus `json:"backups,omitempty"`

	// lastScheduledBackupTime is when a scheduled backup was last taken.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Scheduled Backup",xDescriptors={"urn:alm:descriptor:timestamp"}
	LastScheduledBackupTime *metav1.Time `json:"lastScheduledBackupTime,omitempty"`

	// lastBackupRequest is the last value of the backup-request annotation
	// a backup was taken for.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Backup Request",xDescriptors={"urn:alm:descriptor:text"}
	LastBackupRequest string `json:"lastBackupRequest,omitempty"`

	// restoredFrom is the backup the claim was made from, if it was.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Restored From",xDescriptors={"urn:alm:descriptor:text"}
	RestoredFrom string `json:"restoredFrom,omitempty"`

	// usage is how full the volume is, with autoGrow set.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Usage",xDescriptors={"urn:alm:descriptor:text"}
	Usage *DemoVolumeUsage `json:"usage,omitempty"`

	// lastGrowth is the last growth autoGrow made. The claim asks for the
	// larger of spec.size and its size after it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Growth",xDescriptors={"urn:alm:descriptor:text"}
	LastGrowth *DemoVolumeGrowth `json:"lastGrowth,omitempty"`

	// conditions are Bound, Resizing, BackedUp, Restored, AtMaxSize and
	// Ready (bound, at the size asked for).
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DemoVolume is a PersistentVolumeClaim of the requested size, named after
// it. Deleting a DemoVolume keeps the claim and its data unless its
// reclaimPolicy is Delete.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=dv,categories=seed
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.status.name`
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`,description="GiB asked for"
// +kubebuilder:printcolumn:name="Capacity",type=string,JSONPath=`.status.capacity`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Reclaim",type=string,JSONPath=`.spec.reclaimPolicy`,priority=1
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="name must be at most 63 characters, as its claim carries it in a label"
// +operator-sdk:csv:customresourcedefinitions:displayName="Demo Volume",order=5
// +operator-sdk:csv:customresourcedefinitions:resources={{PersistentVolumeClaim,v1,""}}
type DemoVolume struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   DemoVolumeSpec   `json:"spec"`
	Status DemoVolumeStatus `json:"status,omitempty"`
}

// DemoVolumeList is a list of DemoVolumes.
//
// +kubebuilder:object:root=true
type DemoVolumeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DemoVolume `json:"items"`
}

func init() {
	register(&DemoVolume{}, &DemoVolumeList{})
}

// GetConditions returns the status conditions.
func (d *DemoVolume) GetConditions() []metav1.Condition { return d.Status.Conditions }

// SetConditions replaces the status conditions.
func (d *DemoVolume) SetConditions(conditions []metav1.Condition) { d.Status.Conditions = conditions }

// SizeQuantity is spec.size, in GiB, as a quantity, such as 10Gi.
func (d *DemoVolume) SizeQuantity() resource.Quantity {
	return *resource.NewQuantity(int64(d.Spec.Size)<<30, resource.BinarySI)
}
