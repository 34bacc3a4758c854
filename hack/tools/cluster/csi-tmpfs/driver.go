package main

import (
	"context"
	"errors"
	"sync"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// driver serves CSI's identity, controller and node services for the one
// node it runs on: volumes are made where they are used.
type driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer

	name, version, nodeID string
	// maxSize bounds a volume's size: the volumes take the node's memory.
	maxSize int64
	store   store
	// mu makes the operations one at a time: the sidecars retry, and the
	// store's folders are shared.
	mu sync.Mutex
}

// topologyKey is the label by which a volume is tied to the node that has
// it, so that the scheduler places its pods there.
const topologyKey = "topology.csi-tmpfs/node"

// defaultSize is a volume's size when a claim asks for none.
const defaultSize = 1 << 30

func (d *driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: d.version}, nil
}

func (d *driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	service := func(t csi.PluginCapability_Service_Type) *csi.PluginCapability {
		return &csi.PluginCapability{Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: t}}}
	}
	return &csi.GetPluginCapabilitiesResponse{Capabilities: []*csi.PluginCapability{
		service(csi.PluginCapability_Service_CONTROLLER_SERVICE),
		service(csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS),
		{Type: &csi.PluginCapability_VolumeExpansion_{VolumeExpansion: &csi.PluginCapability_VolumeExpansion{
			Type: csi.PluginCapability_VolumeExpansion_ONLINE,
		}}},
	}}, nil
}

func (d *driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

func (d *driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	types := []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT,
		csi.ControllerServiceCapability_RPC_EXPAND_VOLUME,
	}
	capabilities := make([]*csi.ControllerServiceCapability, 0, len(types))
	for _, t := range types {
		capabilities = append(capabilities, &csi.ControllerServiceCapability{
			Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: t}},
		})
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: capabilities}, nil
}

func (d *driver) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "a volume needs a name")
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return nil, err
	}
	size, err := d.sizeFor(req.GetCapacityRange())
	if err != nil {
		return nil, err
	}
	source := req.GetVolumeContentSource()
	if source != nil && source.GetSnapshot() == nil {
		return nil, status.Error(codes.InvalidArgument, "a volume is made empty or from a snapshot, not from another volume")
	}
	fromSnapshot := source.GetSnapshot().GetSnapshotId()
	if fromSnapshot != "" {
		d.mu.Lock()
		taken, err := d.store.snapshot(fromSnapshot)
		d.mu.Unlock()
		if err != nil {
			return nil, statusOf(err)
		}
		if taken.Size > size {
			return nil, status.Errorf(codes.OutOfRange, "snapshot %s needs %d bytes, more than the %d asked", fromSnapshot, taken.Size, size)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	capacity, err := d.store.createVolume(req.GetName(), size, fromSnapshot)
	if err != nil {
		return nil, statusOf(err)
	}
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId:           req.GetName(),
		CapacityBytes:      capacity,
		ContentSource:      source,
		AccessibleTopology: []*csi.Topology{{Segments: map[string]string{topologyKey: d.nodeID}}},
	}}, nil
}

// sizeFor is the size a capacity range asks for: its required bytes,
// else its limit, else the default, within the driver's bound.
func (d *driver) sizeFor(r *csi.CapacityRange) (int64, error) {
	size := r.GetRequiredBytes()
	if size == 0 {
		size = r.GetLimitBytes()
	}
	if size == 0 {
		size = min(defaultSize, d.maxSize)
	}
	if limit := r.GetLimitBytes(); limit != 0 && limit < size {
		return 0, status.Errorf(codes.OutOfRange, "the limit %d is below the %d bytes required", limit, size)
	}
	if size > d.maxSize {
		return 0, status.Errorf(codes.OutOfRange, "%d bytes is more than the %d a volume may have", size, d.maxSize)
	}
	return size, nil
}

func (d *driver) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	if req.GetVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "no volume named")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.store.deleteVolume(req.GetVolumeId()); err != nil {
		return nil, statusOf(err)
	}
	return &csi.DeleteVolumeResponse{}, nil
}

// ValidateVolumeCapabilities confirms the capabilities the driver serves,
// and answers others with a message, not an error, as CSI asks.
func (d *driver) ValidateVolumeCapabilities(
	_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest,
) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	d.mu.Lock()
	_, err := d.store.size(req.GetVolumeId())
	d.mu.Unlock()
	if err != nil {
		return nil, statusOf(err)
	}
	if refused := checkCapabilities(req.GetVolumeCapabilities()); refused != nil {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: status.Convert(refused).Message()}, nil
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeCapabilities: req.GetVolumeCapabilities(),
	}}, nil
}

func (d *driver) ControllerExpandVolume(_ context.Context, req *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, error) {
	size, err := d.sizeFor(req.GetCapacityRange())
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	capacity, err := d.store.expandVolume(req.GetVolumeId(), size)
	if err != nil {
		return nil, statusOf(err)
	}
	// The tmpfs is the file system: grown here, it is grown for its pods.
	return &csi.ControllerExpandVolumeResponse{CapacityBytes: capacity, NodeExpansionRequired: false}, nil
}

func (d *driver) CreateSnapshot(_ context.Context, req *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	if req.GetName() == "" || req.GetSourceVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "a snapshot needs a name and a source volume")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	taken, err := d.store.createSnapshot(req.GetName(), req.GetSourceVolumeId())
	if err != nil {
		return nil, statusOf(err)
	}
	return &csi.CreateSnapshotResponse{Snapshot: &csi.Snapshot{
		SnapshotId:     taken.ID,
		SourceVolumeId: taken.SourceVolume,
		SizeBytes:      taken.Size,
		CreationTime:   timestamppb.New(taken.Created),
		ReadyToUse:     true,
	}}, nil
}

func (d *driver) DeleteSnapshot(_ context.Context, req *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	if req.GetSnapshotId() == "" {
		return nil, status.Error(codes.InvalidArgument, "no snapshot named")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.store.deleteSnapshot(req.GetSnapshotId()); err != nil {
		return nil, statusOf(err)
	}
	return &csi.DeleteSnapshotResponse{}, nil
}

func (d *driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{
		NodeId:             d.nodeID,
		AccessibleTopology: &csi.Topology{Segments: map[string]string{topologyKey: d.nodeID}},
	}, nil
}

func (d *driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{Capabilities: []*csi.NodeServiceCapability{{
		Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{Type: csi.NodeServiceCapability_RPC_GET_VOLUME_STATS}},
	}}}, nil
}

func (d *driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	if req.GetVolumeId() == "" || req.GetTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "publishing needs a volume and a target path")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.store.size(req.GetVolumeId()); err != nil {
		return nil, statusOf(err)
	}
	mounted, err := isMountPoint(req.GetTargetPath())
	if err != nil {
		return nil, statusOf(err)
	}
	if mounted {
		return &csi.NodePublishVolumeResponse{}, nil
	}
	if err := bindMount(d.store.volumeDir(req.GetVolumeId()), req.GetTargetPath(), req.GetReadonly()); err != nil {
		return nil, statusOf(err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

func (d *driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	if req.GetVolumeId() == "" || req.GetTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "unpublishing needs a volume and a target path")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := unmount(req.GetTargetPath()); err != nil {
		return nil, statusOf(err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// NodeGetVolumeStats is the usage the kubelet reports for a volume: in
// kubelet_volume_stats_* and its summary API.
func (d *driver) NodeGetVolumeStats(_ context.Context, req *csi.NodeGetVolumeStatsRequest) (*csi.NodeGetVolumeStatsResponse, error) {
	if req.GetVolumeId() == "" || req.GetVolumePath() == "" {
		return nil, status.Error(codes.InvalidArgument, "stats need a volume and its path")
	}
	u, err := usageOf(req.GetVolumePath())
	if err != nil {
		return nil, statusOf(err)
	}
	return &csi.NodeGetVolumeStatsResponse{Usage: []*csi.VolumeUsage{
		{Unit: csi.VolumeUsage_BYTES, Total: u.bytes, Available: u.bytesFree, Used: u.bytes - u.bytesFree},
		{Unit: csi.VolumeUsage_INODES, Total: u.inodes, Available: u.inodesFree, Used: u.inodes - u.inodesFree},
	}}, nil
}

// checkCapabilities accepts file system volumes in any access mode (there
// is one node), and refuses raw blocks.
func checkCapabilities(capabilities []*csi.VolumeCapability) error {
	if len(capabilities) == 0 {
		return status.Error(codes.InvalidArgument, "no volume capability asked")
	}
	for _, c := range capabilities {
		if c.GetMount() == nil {
			return status.Error(codes.InvalidArgument, "only file system volumes are served, not raw blocks")
		}
	}
	return nil
}

// statusOf gives a store's error the gRPC code the sidecars act on.
func statusOf(err error) error {
	switch {
	case errors.Is(err, errNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, errConflict):
		return status.Error(codes.AlreadyExists, err.Error())
	default:
		return status.Error(codes.Internal, err.Error())
	}
}
